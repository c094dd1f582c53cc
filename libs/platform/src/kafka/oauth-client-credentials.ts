import { KafkaErrorCode } from '@ums/contracts';
import { CodedError } from '../errors/coded-error';

export interface OAuthClientCredentialsOptions {
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scope?: string;
  /** Renew this long before the token expires (default 60 s, at most half its lifetime). */
  readonly refreshMarginMs?: number;
  readonly timeoutMs?: number;
}

export type OAuthTokenErrorCode =
  KafkaErrorCode.OauthTokenUnreachable | KafkaErrorCode.OauthTokenRefused | KafkaErrorCode.OauthTokenInvalid;

/** The token endpoint refused or failed; the message names the setting to check, never the secret. */
export class OAuthTokenError extends CodedError {
  constructor(
    override readonly code: OAuthTokenErrorCode,
    message: string,
    details?: Readonly<Record<string, unknown>>,
    options?: { cause?: unknown },
  ) {
    super(code, message, details, options);
  }
}

interface CachedToken {
  readonly value: string;
  readonly renewAt: number;
}

/**
 * OAuth 2.0 client-credentials grant (RFC 6749 4.4) for SASL/OAUTHBEARER: fetches an access token,
 * reuses it until shortly before it expires, and has at most one request in flight (kafkajs asks for a
 * token on every broker connection). Client authentication is HTTP Basic (client_secret_basic), which
 * the common identity providers (Okta, Entra ID, Keycloak, Confluent Cloud's) accept.
 */
export class OAuthClientCredentials {
  private cached?: CachedToken;
  private pending?: Promise<CachedToken>;

  constructor(private readonly options: OAuthClientCredentialsOptions) {}

  /** The shape kafkajs' oauthBearerProvider returns. */
  async token(): Promise<{ value: string }> {
    if (this.cached !== undefined && Date.now() < this.cached.renewAt) return { value: this.cached.value };
    this.pending ??= this.fetchToken().finally(() => (this.pending = undefined));
    this.cached = await this.pending;
    return { value: this.cached.value };
  }

  private async fetchToken(): Promise<CachedToken> {
    const { tokenUrl, clientId, clientSecret, scope } = this.options;
    const body = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope !== undefined) body.set('scope', scope);
    const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString(
      'base64',
    );
    let response: Response;
    try {
      response = await fetch(tokenUrl, {
        method: 'POST',
        headers: {
          authorization: `Basic ${basic}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body,
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
    } catch (error: unknown) {
      throw new OAuthTokenError(
        KafkaErrorCode.OauthTokenUnreachable,
        `OAuth token endpoint KAFKA_SASL_OAUTH_TOKEN_URL (${tokenUrl}) did not answer: ${errorText(error)}`,
        { setting: 'KAFKA_SASL_OAUTH_TOKEN_URL' },
        { cause: error },
      );
    }
    return this.parse(response);
  }

  private async parse(response: Response): Promise<CachedToken> {
    const text = await response.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // reported below: no access_token
    }
    if (!response.ok) {
      // Only the RFC 6749 error code, never the body (it may echo what was sent).
      const code = typeof json['error'] === 'string' ? json['error'] : `HTTP ${response.status}`;
      const settings =
        response.status === 400 && code === 'invalid_scope'
          ? 'KAFKA_SASL_OAUTH_SCOPE'
          : 'KAFKA_SASL_OAUTH_CLIENT_ID and KAFKA_SASL_OAUTH_CLIENT_SECRET';
      throw new OAuthTokenError(
        KafkaErrorCode.OauthTokenRefused,
        `OAuth token endpoint refused the client-credentials grant (${code}): check ${settings}`,
        { setting: settings, status: response.status },
      );
    }
    const value = json['access_token'];
    if (typeof value !== 'string' || value === '')
      throw new OAuthTokenError(
        KafkaErrorCode.OauthTokenInvalid,
        'OAuth token endpoint answered without an access_token: check KAFKA_SASL_OAUTH_TOKEN_URL',
        { setting: 'KAFKA_SASL_OAUTH_TOKEN_URL' },
      );
    const expiresInMs = typeof json['expires_in'] === 'number' ? json['expires_in'] * 1000 : 300_000;
    const margin = Math.min(this.options.refreshMarginMs ?? 60_000, expiresInMs / 2);
    return { value, renewAt: Date.now() + expiresInMs - margin };
  }
}

function errorText(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
