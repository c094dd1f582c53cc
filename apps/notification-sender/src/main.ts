import 'reflect-metadata';
import { bootstrapService } from '@ums/platform';
import { NotificationSenderModule } from './app.module';

bootstrapService(NotificationSenderModule).catch((error: unknown) => {
  // Config errors list every bad variable; print them plainly, not as a stack trace.
  process.stderr.write(
    `notification-sender failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
