import { Injectable } from '@nestjs/common';
import {
  Channel,
  describeIssues,
  FailureReason,
  parseCredentialConfig,
  Provider,
  secretProblem,
  SendOutcomeCode,
} from '@ums/contracts';
import { ProviderEndpointPolicy, type ProviderFailure } from '@ums/domain';
import { SecretBox, SecretUnreadableError } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { CredentialsRepository } from './credentials.repository';
import type { LoadedCredential, ProviderEndpoint } from './provider-adapter';
import { ProvidersConfig } from './providers.config';
import { ProvidersMetrics } from './providers.metrics';
import { RedactedSecret } from './redacted-secret';

export type CredentialLoad =
  | { readonly ok: true; readonly credential: LoadedCredential }
  | { readonly ok: false; readonly failure: ProviderFailure };

// Bounds the cache if ids keep changing (a misbehaving producer); credentials are few otherwise.
const MAX_CACHED = 10_000;

const PROVIDERS = new Set<string>(Object.values(Provider));
const CHANNELS = new Set<string>(Object.values(Channel));

/**
 * Credentials by id, ready to send with: settings validated for the provider, secret decrypted
 * with the SecretBox (kept in a RedactedSecret), cached for CREDENTIAL_CACHE_TTL_MS (concurrent
 * loads of one id share one query). A credential that cannot be used yields a permanent
 * CREDENTIAL_INVALID failure naming the problem, never the secret; one the deployment does not
 * allow yields PROVIDER_DISABLED (a simulator credential where the simulator is off) or
 * ENDPOINT_NOT_ALLOWED (a base URL not on the provider's allowlist), before its secret is even
 * opened; a database error yields a retryable CREDENTIAL_UNAVAILABLE and is not cached.
 */
@Injectable()
export class CredentialLoader {
  private readonly cache = new Map<
    string,
    { readonly expiresAt: number; readonly load: Promise<CredentialLoad> }
  >();

  constructor(
    private readonly repository: CredentialsRepository,
    private readonly secretBox: SecretBox,
    private readonly config: ProvidersConfig,
    private readonly metrics: ProvidersMetrics,
    private readonly logger: PinoLogger,
    private readonly endpoints: ProviderEndpointPolicy,
  ) {
    this.logger.setContext(CredentialLoader.name);
  }

  load(id: string): Promise<CredentialLoad> {
    const now = Date.now();
    const cached = this.cache.get(id);
    if (cached !== undefined && cached.expiresAt > now) return cached.load;
    if (this.cache.size >= MAX_CACHED) this.cache.clear();
    const entry = { expiresAt: now + this.config.CREDENTIAL_CACHE_TTL_MS, load: this.read(id) };
    this.cache.set(id, entry);
    void entry.load.then((result) => {
      if (!result.ok) {
        this.metrics.credentialLoadFailures.inc({ code: result.failure.code });
        this.logger.warn(
          { credentialId: id, code: result.failure.code, detail: result.failure.detail },
          'credential cannot be used',
        );
        // A database error is not the credential's fault: ask again next time.
        if (result.failure.kind === 'retryable' && this.cache.get(id) === entry) this.cache.delete(id);
      }
    });
    return entry.load;
  }

  /** Forgets a cached credential (after it changed), so the next load reads it again. */
  invalidate(id: string): void {
    this.cache.delete(id);
  }

  private async read(id: string): Promise<CredentialLoad> {
    try {
      return await this.readOrRefuse(id);
    } catch (error: unknown) {
      // The database (or something else outside the credential) failed: worth another try later.
      return {
        ok: false,
        failure: {
          kind: 'retryable',
          reason: FailureReason.Other,
          code: SendOutcomeCode.CredentialUnavailable,
          detail: `credential ${id} could not be read: ${error instanceof Error ? error.message : String(error)}`,
          congestion: false,
          ambiguous: false,
        },
      };
    }
  }

  private async readOrRefuse(id: string): Promise<CredentialLoad> {
    const stored = await this.repository.findById(id);
    if (stored === undefined) return invalid(`credential ${id} does not exist`);
    const { provider, channel } = stored;
    if (!isProvider(provider)) return invalid(`credential ${id} has an unknown provider '${provider}'`);
    if (!isChannel(channel)) return invalid(`credential ${id} has an unknown channel '${channel}'`);
    if (!this.endpoints.isEnabled(provider)) {
      return refused(
        SendOutcomeCode.ProviderDisabled,
        `credential ${id}: provider ${provider} is not enabled on this deployment`,
      );
    }
    const parsed = parseCredentialConfig(provider, stored.config);
    if (!parsed.ok) return invalid(`credential ${id} (${provider}): ${describeIssues(parsed.issues)}`);
    const endpointProblem = this.endpoints.endpointProblem(provider, parsed.config.baseUrl);
    if (endpointProblem !== undefined) {
      return refused(
        SendOutcomeCode.EndpointNotAllowed,
        `credential ${id}: config.baseUrl ${endpointProblem}`,
      );
    }
    let secret: string | undefined;
    if (stored.sealedSecret !== null) {
      try {
        secret = this.secretBox.open(stored.sealedSecret);
      } catch (error: unknown) {
        // SecretBox messages name the key id and the problem, never the secret or the keys.
        if (error instanceof SecretUnreadableError) {
          return invalid(`credential ${id}: secret cannot be opened (${error.code}: ${error.message})`);
        }
        throw error;
      }
    }
    const problem = secretProblem(provider, secret);
    if (problem !== undefined) return invalid(`credential ${id}: ${problem}`);
    return {
      ok: true,
      credential: {
        id: stored.id,
        provider,
        channel,
        config: parsed.config,
        endpoint: endpointOf(parsed.config.baseUrl),
        secret: secret === undefined ? undefined : new RedactedSecret(secret),
        limits: stored.limits,
      },
    };
  }
}

/** Why a credential cannot send: its stored values are unusable, or the deployment does not allow them. */
export type CredentialRefusalCode =
  SendOutcomeCode.CredentialInvalid | SendOutcomeCode.ProviderDisabled | SendOutcomeCode.EndpointNotAllowed;

function refused(code: CredentialRefusalCode, detail: string): CredentialLoad {
  return { ok: false, failure: { kind: 'permanent', reason: FailureReason.Other, code, detail } };
}

function invalid(detail: string): CredentialLoad {
  return refused(SendOutcomeCode.CredentialInvalid, detail);
}

function isProvider(value: string): value is Provider {
  return PROVIDERS.has(value);
}

function isChannel(value: string): value is Channel {
  return CHANNELS.has(value);
}

/** The pool key (origin) and path prefix of a validated base URL. */
export function endpointOf(baseUrl: string): ProviderEndpoint {
  const url = new URL(baseUrl);
  return { origin: url.origin, basePath: url.pathname.replace(/\/+$/, '') };
}
