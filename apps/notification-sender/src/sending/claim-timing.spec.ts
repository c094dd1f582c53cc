import { loadConfig } from '@ums/platform';
import { ProvidersConfig } from '../providers/providers.config';
import { claimTimingOf } from './claim-timing';
import { SendingConfig } from './sending.config';

function timing(env: Record<string, string>): ReturnType<typeof claimTimingOf> {
  return claimTimingOf({ ...loadConfig(SendingConfig, env), ...loadConfig(ProvidersConfig, env) });
}

describe('claimTimingOf', () => {
  it('fits the defaults: a request takes at most 25 s, and may start within 85 s of its claim', () => {
    expect(timing({})).toEqual({ requestWorstMs: 25_000, startWindowMs: 85_000 });
  });

  it('accepts a claim timeout of exactly one queued and one sent request plus the record margin', () => {
    expect(
      timing({
        SENDER_CLAIM_TIMEOUT_MS: '15000',
        SENDER_CLAIM_RECORD_MARGIN_MS: '1000',
        PROVIDER_CONNECT_TIMEOUT_MS: '1000',
        PROVIDER_HTTP_TIMEOUT_MS: '3000',
      }),
    ).toEqual({ requestWorstMs: 7_000, startWindowMs: 7_000 });
  });

  it('refuses a claim timeout the provider timeouts can outlast, naming every setting involved', () => {
    const tooShort = (): unknown =>
      timing({ SENDER_CLAIM_TIMEOUT_MS: '5000', PROVIDER_HTTP_TIMEOUT_MS: '10000' });
    expect(tooShort).toThrow(/SENDER_CLAIM_TIMEOUT_MS: must be at least 60000/);
    for (const name of [
      'PROVIDER_CONNECT_TIMEOUT_MS',
      'PROVIDER_HTTP_TIMEOUT_MS',
      'SENDER_CLAIM_RECORD_MARGIN_MS',
      'got 5000',
    ]) {
      expect(tooShort).toThrow(name);
    }
    expect(() =>
      timing({
        SENDER_CLAIM_TIMEOUT_MS: '14999',
        SENDER_CLAIM_RECORD_MARGIN_MS: '1000',
        PROVIDER_CONNECT_TIMEOUT_MS: '1000',
        PROVIDER_HTTP_TIMEOUT_MS: '3000',
      }),
    ).toThrow(/CONFIG_INVALID|Invalid configuration/);
  });
});
