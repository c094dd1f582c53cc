import { Channel, parseCredentialConfig, Provider } from '@ums/contracts';
import { ProviderEndpointPolicy, type TemplateContent } from '@ums/domain';
import { loadConfig, MetricsRegistry } from '@ums/platform';
import { endpointOf } from '../credential-loader.service';
import type { LoadedCredential, OutgoingMessage } from '../provider-adapter';
import { ProviderHttpClient } from '../provider-http.client';
import { ProvidersConfig } from '../providers.config';
import { ProvidersMetrics } from '../providers.metrics';
import { RedactedSecret } from '../redacted-secret';

export const TWILIO_SID = 'AC0123456789abcdef0123456789abcdef';

/** A loaded credential built the way the loader builds it (settings validated), for tests. */
export function credentialFor<P extends Provider>(
  provider: P,
  config: Record<string, string | number | boolean>,
  secret: string | undefined,
  options: { id?: string; channel?: Channel } = {},
): LoadedCredential<P> {
  const parsed = parseCredentialConfig(provider, config);
  if (!parsed.ok) throw new Error(`bad test config: ${JSON.stringify(parsed.issues)}`);
  return {
    id: options.id ?? `cred_${provider}`,
    provider,
    channel: options.channel ?? Channel.Sms,
    config: parsed.config,
    endpoint: endpointOf(parsed.config.baseUrl),
    secret: secret === undefined ? undefined : new RedactedSecret(secret),
    limits: { ceiling: 1_000, floor: 10, tenantCapPerSec: null },
  };
}

export function message(
  messageId: string,
  channel: Channel,
  recipient: string,
  content: TemplateContent,
): OutgoingMessage {
  return { messageId, channel, recipient, content };
}

/** Endpoint rules allowing every provider on loopback at any port (where the fake servers listen), simulator on. */
export function loopbackEndpoints(): ProviderEndpointPolicy {
  const loopback = ['http://127.0.0.1:*', 'http://localhost:*'];
  return new ProviderEndpointPolicy({
    allowlists: {
      [Provider.WhatsAppCloud]: loopback,
      [Provider.Twilio]: loopback,
      [Provider.Ses]: loopback,
      [Provider.Mitto]: loopback,
      [Provider.Simulator]: loopback,
    },
    simulatorEnabled: true,
  });
}

/** An HTTP client and its metrics outside Nest, with test-sized timeouts. */
export function testHttpClient(
  env: Record<string, string> = {},
  endpoints: ProviderEndpointPolicy = loopbackEndpoints(),
): {
  http: ProviderHttpClient;
  config: ProvidersConfig;
  metrics: ProvidersMetrics;
  endpoints: ProviderEndpointPolicy;
} {
  const config = loadConfig(ProvidersConfig, env);
  const metrics = new ProvidersMetrics(new MetricsRegistry('test'));
  return { http: new ProviderHttpClient(config, metrics, endpoints), config, metrics, endpoints };
}

export const ALL_PROVIDERS: readonly Provider[] = Object.values(Provider);
