import { ConfigValidationError, loadConfig } from '@ums/platform';
import { CallbacksConfig } from './callbacks.config';

describe('CallbacksConfig', () => {
  it('holds 32 MiB of bodies in flight by default', () => {
    expect(loadConfig(CallbacksConfig, {}).INGEST_MAX_INFLIGHT_BYTES).toBe(32 * 1_048_576);
  });

  it('refuses an in-flight budget below the largest route body limit', () => {
    expect(() => loadConfig(CallbacksConfig, { INGEST_MAX_INFLIGHT_BYTES: String(4 * 1_048_576) })).toThrow(
      /INGEST_MAX_INFLIGHT_BYTES must be at least the largest INGEST_\*_MAX_BODY_BYTES/,
    );
    expect(() =>
      loadConfig(CallbacksConfig, {
        INGEST_MAX_INFLIGHT_BYTES: String(1_048_576),
        INGEST_WHATSAPP_MAX_BODY_BYTES: String(1_048_576),
        INGEST_SIMULATOR_MAX_BODY_BYTES: String(2 * 1_048_576),
      }),
    ).toThrow(ConfigValidationError);
    const fits = loadConfig(CallbacksConfig, {
      INGEST_MAX_INFLIGHT_BYTES: String(1_048_576),
      INGEST_WHATSAPP_MAX_BODY_BYTES: String(1_048_576),
      INGEST_SIMULATOR_MAX_BODY_BYTES: String(1_048_576),
    });
    expect(fits.INGEST_MAX_INFLIGHT_BYTES).toBe(1_048_576);
  });
});
