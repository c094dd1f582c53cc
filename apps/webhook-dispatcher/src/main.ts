import 'reflect-metadata';
import { bootstrapService } from '@ums/platform';
import { WebhookDispatcherModule } from './app.module';

bootstrapService(WebhookDispatcherModule).catch((error: unknown) => {
  // Config errors list every bad variable; print them plainly, not as a stack trace.
  process.stderr.write(
    `webhook-dispatcher failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
