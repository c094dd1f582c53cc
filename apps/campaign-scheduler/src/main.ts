import 'reflect-metadata';
import { bootstrapService } from '@ums/platform';
import { CampaignSchedulerModule } from './app.module';

// Audience uploads stream through multipart; the audience service enforces the configured size
// limit itself (AUDIENCE_MAX_BYTES) while counting bytes, so the plugin's own limit is only a backstop.
bootstrapService(CampaignSchedulerModule, { multipartFileLimitBytes: Number.MAX_SAFE_INTEGER }).catch(
  (error: unknown) => {
    // Config errors list every bad variable; print them plainly, not as a stack trace.
    process.stderr.write(
      `campaign-scheduler failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  },
);
