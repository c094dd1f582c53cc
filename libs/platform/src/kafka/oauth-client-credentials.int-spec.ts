import { freePort, startOAuthTokenEndpoint, type OAuthTokenEndpoint } from '@ums/testing';
import { OAuthClientCredentials, OAuthTokenError } from './oauth-client-credentials';

/** The OAUTHBEARER token provider against a real client-credentials endpoint on loopback. */
describe('OAuthClientCredentials (loopback token endpoint)', () => {
  let endpoint: OAuthTokenEndpoint;

  beforeAll(async () => {
    endpoint = await startOAuthTokenEndpoint({ subject: 'ums-test', expiresInS: 2 });
  });

  afterAll(async () => {
    await endpoint?.stop();
  });

  const provider = (secret = endpoint.clientSecret): OAuthClientCredentials =>
    new OAuthClientCredentials({
      tokenUrl: endpoint.tokenUrl,
      clientId: endpoint.clientId,
      clientSecret: secret,
      scope: 'kafka',
    });

  it('fetches one token for concurrent callers and reuses it until shortly before it expires', async () => {
    const credentials = provider();
    const before = endpoint.issued;
    const tokens = await Promise.all([1, 2, 3, 4, 5].map(() => credentials.token()));
    expect(new Set(tokens.map((t) => t.value)).size).toBe(1);
    expect(endpoint.issued - before).toBe(1);
    const [, claims] = (tokens[0]?.value ?? '').split('.');
    expect(JSON.parse(Buffer.from(claims ?? '', 'base64url').toString())).toMatchObject({
      sub: 'ums-test',
      scope: 'kafka',
    });
    // Lifetime 2 s: renewed after half of it (the margin is at most half the lifetime).
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await credentials.token();
    expect(endpoint.issued - before).toBe(2);
  });

  it('names the client settings when the endpoint refuses them, without the secret', async () => {
    const error = await provider('wrong-secret-value')
      .token()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(OAuthTokenError);
    expect((error as OAuthTokenError).code).toBe('KAFKA_OAUTH_TOKEN_REFUSED');
    expect((error as Error).message).toMatch(/invalid_client.*KAFKA_SASL_OAUTH_CLIENT_SECRET/);
    expect((error as Error).message).not.toContain('wrong-secret-value');
  });

  it('names the token URL when nothing answers there', async () => {
    const credentials = new OAuthClientCredentials({
      tokenUrl: `http://127.0.0.1:${await freePort()}/token`,
      clientId: 'c',
      clientSecret: 's',
    });
    const error = await credentials.token().then(
      () => undefined,
      (e: unknown) => e as OAuthTokenError,
    );
    expect(error?.code).toBe('KAFKA_OAUTH_TOKEN_UNREACHABLE');
    expect(error?.message).toMatch(/KAFKA_SASL_OAUTH_TOKEN_URL .*ECONNREFUSED/);
  });
});
