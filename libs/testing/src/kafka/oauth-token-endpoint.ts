import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OAuthTokenEndpoint {
  /** http://127.0.0.1:port/token */
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Tokens handed out so far. */
  readonly issued: number;
  stop(): Promise<void>;
}

export interface OAuthTokenEndpointOptions {
  /** The `sub` claim: the Kafka principal of the token's holder. */
  readonly subject: string;
  /** Seconds a token is valid (3600 when omitted). */
  readonly expiresInS?: number;
}

/** An unsecured JWT (alg none, empty signature), which Kafka's default OAUTHBEARER validator accepts. */
export function unsecuredJwt(subject: string, expiresInS: number, scope?: string): string {
  const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const claims = { sub: subject, iat: now, exp: now + expiresInS, ...(scope ? { scope } : {}) };
  return `${part({ alg: 'none' })}.${part(claims)}.`;
}

function clientOf(request: IncomingMessage): { id: string; secret: string } | undefined {
  const match = /^Basic (.+)$/.exec(request.headers.authorization ?? '');
  if (match === null) return undefined;
  const [id, secret] = Buffer.from(match[1] ?? '', 'base64')
    .toString('utf8')
    .split(':');
  if (id === undefined || secret === undefined) return undefined;
  return { id: decodeURIComponent(id), secret: decodeURIComponent(secret) };
}

/**
 * An OAuth 2.0 client-credentials token endpoint on loopback for tests: one client (random id and
 * secret, HTTP Basic), tokens that are unsecured JWTs for `subject`. Wrong credentials get 401
 * invalid_client, as a real identity provider answers.
 */
export async function startOAuthTokenEndpoint(
  options: OAuthTokenEndpointOptions,
): Promise<OAuthTokenEndpoint> {
  const clientId = `ums-client-${randomBytes(3).toString('hex')}`;
  const clientSecret = randomBytes(16).toString('hex');
  let issued = 0;
  const answer = (response: ServerResponse, status: number, body: object): void => {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const form = new URLSearchParams(body);
      const client = clientOf(request);
      if (request.method !== 'POST' || form.get('grant_type') !== 'client_credentials')
        return answer(response, 400, { error: 'unsupported_grant_type' });
      if (client?.id !== clientId || client.secret !== clientSecret)
        return answer(response, 401, { error: 'invalid_client' });
      issued += 1;
      const expiresIn = options.expiresInS ?? 3600;
      const token = unsecuredJwt(options.subject, expiresIn, form.get('scope') ?? undefined);
      return answer(response, 200, { access_token: token, token_type: 'bearer', expires_in: expiresIn });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    tokenUrl: `http://127.0.0.1:${port}/token`,
    clientId,
    clientSecret,
    get issued() {
      return issued;
    },
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((e) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      }),
  };
}
