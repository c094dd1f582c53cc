import 'reflect-metadata';
import { bootstrapService } from '@ums/platform';
import { BatchExpanderModule } from './app.module';

bootstrapService(BatchExpanderModule).catch((error: unknown) => {
  // Config errors list every bad variable; print them plainly, not as a stack trace.
  process.stderr.write(
    `batch-expander failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
