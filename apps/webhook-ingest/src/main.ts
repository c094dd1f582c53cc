import 'reflect-metadata';
import { bootstrapService } from '@ums/platform';
import { WebhookIngestModule } from './app.module';

bootstrapService(WebhookIngestModule).catch((error: unknown) => {
  // Config errors list every bad variable; print them plainly, not as a stack trace.
  process.stderr.write(
    `webhook-ingest failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
