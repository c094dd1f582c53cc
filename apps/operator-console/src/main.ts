import 'reflect-metadata';
import { bootstrapService } from '@ums/platform';
import { OperatorConsoleModule } from './app.module';

bootstrapService(OperatorConsoleModule).catch((error: unknown) => {
  // Config errors list every bad variable; print them plainly, not as a stack trace.
  process.stderr.write(
    `operator-console failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
