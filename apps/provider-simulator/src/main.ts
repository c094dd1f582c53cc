import 'reflect-metadata';
import { bootstrapService } from '@ums/platform';
import { ProviderSimulatorModule } from './app.module';

bootstrapService(ProviderSimulatorModule).catch((error: unknown) => {
  // Config errors list every bad variable; print them plainly, not as a stack trace.
  process.stderr.write(
    `provider-simulator failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
