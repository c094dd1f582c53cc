import 'reflect-metadata';
import { bootstrapService } from '@ums/platform';
import { CampaignSchedulerModule } from './app.module';

bootstrapService(CampaignSchedulerModule).catch((error: unknown) => {
  // Config errors list every bad variable; print them plainly, not as a stack trace.
  process.stderr.write(
    `campaign-scheduler failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
