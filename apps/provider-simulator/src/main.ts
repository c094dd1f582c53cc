import 'reflect-metadata';
import { bootstrapService } from '@ums/platform';
import { ProviderSimulatorModule } from './app.module';

// Bulk requests carry up to 1000 messages; long texts need more than the 1 MB default.
const BODY_LIMIT_BYTES = 8 * 1024 * 1024;

bootstrapService(ProviderSimulatorModule, { bodyLimitBytes: BODY_LIMIT_BYTES }).catch((error: unknown) => {
  // Config errors list every bad variable; print them plainly, not as a stack trace.
  process.stderr.write(
    `provider-simulator failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
