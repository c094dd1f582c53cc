import { Provider } from '@ums/contracts';
import {
  DEFAULT_PROVIDER_ENDPOINTS,
  endpointMatches,
  type EndpointPattern,
  parseEndpointPattern,
  ProviderEndpointPolicy,
  sameEndpoint,
} from './provider-endpoints';

function pattern(entry: string): EndpointPattern {
  const parsed = parseEndpointPattern(entry);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.pattern;
}

function policy(
  allowlists: Partial<Record<Provider, readonly string[]>> = {},
  simulatorEnabled = false,
): ProviderEndpointPolicy {
  return new ProviderEndpointPolicy({
    allowlists: { ...DEFAULT_PROVIDER_ENDPOINTS, ...allowlists },
    simulatorEnabled,
  });
}

describe('parseEndpointPattern', () => {
  it('reads scheme, host labels, port (the default when none) and path', () => {
    expect(pattern('https://Graph.Facebook.com')).toEqual({
      text: 'https://Graph.Facebook.com',
      protocol: 'https:',
      labels: ['graph', 'facebook', 'com'],
      port: 443,
      path: '',
    });
    expect(pattern('http://127.0.0.1:*/mitto/')).toMatchObject({ port: '*', path: '/mitto' });
    expect(pattern('http://[::1]:3005')).toMatchObject({ labels: ['[::1]'], port: 3005 });
  });

  it('refuses entries that are not an http(s) base URL, or wildcards that are too wide', () => {
    for (const entry of [
      'ftp://x.example',
      'https://x.example/?q=1',
      'https://x.example/#f',
      'https://user:pw@x.example',
      'graph.facebook.com',
      'https://*.com',
      'https://api.*',
      'https://x_y.example',
      'https://x.example:0',
      'https://x.example:70000',
      '',
    ]) {
      expect({ entry, ok: parseEndpointPattern(entry).ok }).toEqual({ entry, ok: false });
    }
  });
});

describe('endpointMatches', () => {
  it('matches the same scheme, host, port and path, ignoring case, default ports and trailing slashes', () => {
    const graph = pattern('https://graph.facebook.com');
    for (const url of [
      'https://graph.facebook.com',
      'https://GRAPH.facebook.com/',
      'https://graph.facebook.com:443',
    ]) {
      expect({ url, match: endpointMatches(graph, url) }).toEqual({ url, match: true });
    }
    for (const url of [
      'http://graph.facebook.com',
      'https://graph.facebook.com:8443',
      'https://graph.facebook.com/v21.0',
      'https://graph.facebook.com.evil.example',
      'https://evil.example/graph.facebook.com',
      'https://graph.facebook.com@evil.example',
      'https://user@graph.facebook.com',
      'https://graph.facebook.com?x=1',
      'https://graph.facebook.com/#x',
      'not a url',
    ]) {
      expect({ url, match: endpointMatches(graph, url) }).toEqual({ url, match: false });
    }
  });

  it('lets * stand for one host label, and for any port', () => {
    const ses = pattern('https://email.*.amazonaws.com');
    expect(endpointMatches(ses, 'https://email.eu-west-1.amazonaws.com')).toBe(true);
    expect(endpointMatches(ses, 'https://email.amazonaws.com')).toBe(false);
    expect(endpointMatches(ses, 'https://email.a.b.amazonaws.com')).toBe(false);
    expect(endpointMatches(ses, 'https://email.eu-west-1.amazonaws.com.evil.example')).toBe(false);
    const loopback = pattern('http://127.0.0.1:*');
    expect(endpointMatches(loopback, 'http://127.0.0.1:41234')).toBe(true);
    expect(endpointMatches(loopback, 'http://127.0.0.1')).toBe(true);
    expect(endpointMatches(loopback, 'https://127.0.0.1:41234')).toBe(false);
    expect(endpointMatches(loopback, 'http://127.0.0.2:41234')).toBe(false);
  });

  it('requires the exact path of an entry with a path', () => {
    const mitto = pattern('http://localhost:3005/mitto');
    expect(endpointMatches(mitto, 'http://localhost:3005/mitto/')).toBe(true);
    expect(endpointMatches(mitto, 'http://localhost:3005')).toBe(false);
    expect(endpointMatches(mitto, 'http://localhost:3005/mitto/x')).toBe(false);
  });
});

describe('sameEndpoint', () => {
  it('compares normalized endpoints', () => {
    expect(sameEndpoint('https://API.twilio.com/', 'https://api.twilio.com:443')).toBe(true);
    expect(sameEndpoint('https://api.twilio.com', 'https://api.twilio.com/x')).toBe(false);
    expect(sameEndpoint('https://api.twilio.com', 'http://api.twilio.com')).toBe(false);
    expect(sameEndpoint('nonsense', 'nonsense')).toBe(true);
    expect(sameEndpoint('nonsense', 'https://api.twilio.com')).toBe(false);
  });
});

describe('ProviderEndpointPolicy', () => {
  it("accepts a provider's own endpoints only, naming the allowed ones otherwise", () => {
    const rules = policy();
    expect(rules.endpointProblem(Provider.Twilio, 'https://api.twilio.com')).toBeUndefined();
    expect(rules.endpointProblem(Provider.Twilio, 'https://graph.facebook.com')).toBe(
      "must be one of this deployment's twilio endpoints: https://api.twilio.com",
    );
    expect(rules.endpointProblem(Provider.Ses, 'https://email.us-east-1.amazonaws.com')).toBeUndefined();
    expect(
      policy({ [Provider.Mitto]: [] }).endpointProblem(Provider.Mitto, 'https://rest.mittoapi.com'),
    ).toBe('no mitto endpoint is allowed on this deployment');
  });

  it('defaults a credential to the first entry without a wildcard', () => {
    const rules = policy({ [Provider.Simulator]: ['http://127.0.0.1:*', 'http://sim.internal:3005'] });
    expect(rules.defaultBaseUrl(Provider.WhatsAppCloud)).toBe('https://graph.facebook.com');
    expect(rules.defaultBaseUrl(Provider.Ses)).toBeUndefined();
    expect(rules.defaultBaseUrl(Provider.Simulator)).toBe('http://sim.internal:3005');
    expect(rules.defaultBaseUrl(Provider.Mitto)).toBe('https://rest.mittoapi.net');
  });

  it("allows Mitto's geo-resolved, regional and .com endpoints by default", () => {
    const rules = policy();
    for (const url of [
      'https://rest.mittoapi.net',
      'https://rest-fra.mittoapi.net',
      'https://rest.mittoapi.com',
    ]) {
      expect(rules.endpointProblem(Provider.Mitto, url)).toBeUndefined();
    }
    expect(rules.endpointProblem(Provider.Mitto, 'https://mittoapi.net.example.org')).toContain(
      'must be one of',
    );
  });

  it('enables the simulator only when the deployment says so, and trusts only enabled origins', () => {
    const off = policy({ [Provider.Simulator]: ['http://127.0.0.1:*'] });
    const on = policy({ [Provider.Simulator]: ['http://127.0.0.1:*'] }, true);
    expect(off.isEnabled(Provider.Simulator)).toBe(false);
    expect(off.isEnabled(Provider.Twilio)).toBe(true);
    expect(on.isEnabled(Provider.Simulator)).toBe(true);
    expect(off.trustsOrigin('http://127.0.0.1:4000')).toBe(false);
    expect(on.trustsOrigin('http://127.0.0.1:4000')).toBe(true);
    expect(on.trustsOrigin('https://graph.facebook.com')).toBe(true);
    expect(on.trustsOrigin('https://email.eu-west-1.amazonaws.com')).toBe(true);
    expect(on.trustsOrigin('http://169.254.169.254')).toBe(false);
  });

  it('refuses to be built from an invalid entry', () => {
    expect(() => policy({ [Provider.Twilio]: ['api.twilio.com'] })).toThrow(/twilio/);
  });
});
