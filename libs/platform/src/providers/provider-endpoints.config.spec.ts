import { Provider } from '@ums/contracts';
import { loadConfig } from '../config/config-loader';
import { ProviderEndpointsConfig } from './provider-endpoints.config';

describe('ProviderEndpointsConfig', () => {
  it("defaults to each provider's public endpoint, with the simulator off", () => {
    const config = loadConfig(ProviderEndpointsConfig, {});
    expect(config.PROVIDER_ENDPOINTS_WHATSAPP_CLOUD).toEqual(['https://graph.facebook.com']);
    expect(config.PROVIDER_ENDPOINTS_TWILIO).toEqual(['https://api.twilio.com']);
    expect(config.PROVIDER_SIMULATOR_ENABLED).toBe(false);
    const policy = config.policy();
    expect(policy.isEnabled(Provider.Simulator)).toBe(false);
    expect(policy.endpointProblem(Provider.Twilio, 'https://api.twilio.com')).toBeUndefined();
  });

  it('reads comma-separated lists and the simulator switch', () => {
    const config = loadConfig(ProviderEndpointsConfig, {
      PROVIDER_ENDPOINTS_TWILIO: 'https://api.twilio.com, https://twilio-proxy.internal:8443/twilio',
      PROVIDER_ENDPOINTS_MITTO: '',
      PROVIDER_ENDPOINTS_SIMULATOR: 'http://127.0.0.1:*',
      PROVIDER_SIMULATOR_ENABLED: 'true',
    });
    expect(config.PROVIDER_ENDPOINTS_TWILIO).toEqual([
      'https://api.twilio.com',
      'https://twilio-proxy.internal:8443/twilio',
    ]);
    const policy = config.policy();
    expect(
      policy.endpointProblem(Provider.Twilio, 'https://twilio-proxy.internal:8443/twilio'),
    ).toBeUndefined();
    expect(policy.endpointProblem(Provider.Mitto, 'https://rest.mittoapi.com')).toBe(
      'no mitto endpoint is allowed on this deployment',
    );
    expect(policy.isEnabled(Provider.Simulator)).toBe(true);
    expect(policy.endpointProblem(Provider.Simulator, 'http://127.0.0.1:40123')).toBeUndefined();
  });

  it('refuses a bad entry or switch at start-up, naming the variable', () => {
    expect(() =>
      loadConfig(ProviderEndpointsConfig, {
        PROVIDER_ENDPOINTS_WHATSAPP_CLOUD: 'https://graph.facebook.com,graph.example?x=1',
        PROVIDER_SIMULATOR_ENABLED: 'maybe',
      }),
    ).toThrow(
      /PROVIDER_ENDPOINTS_WHATSAPP_CLOUD: 'graph\.example\?x=1' must be http\(s\):\/\/host\[:port\]\[\/path\][\s\S]*PROVIDER_SIMULATOR_ENABLED/,
    );
  });
});
