import { Injectable } from '@nestjs/common';
import { CallbackErrorCode, Channel, Provider } from '@ums/contracts';
import { isRecord } from '@ums/domain';
import { SecretBox, SecretUnreadableError, UnavailableError } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { CallbackCredentialsRepository } from './callback-credentials.repository';
import { CallbacksConfig } from './callbacks.config';

/** What a credential's callbacks are verified with. */
export interface CallbackCredential {
  readonly id: string;
  readonly provider: Provider;
  readonly channel: Channel;
  /** HMAC key (Meta app secret, Twilio auth token, simulator secret) or Mitto's shared token. */
  readonly verifySecret: string | undefined;
  /**
   * Meta's `hub.verify_token` for the subscription challenge: sealed in `verify_token_ciphertext`
   * (set through the credentials API), else a plain `config.webhookVerifyToken` written before that column.
   */
  readonly verifyToken: string | undefined;
  /** The only SNS topic whose deliveries are accepted for an `ses` credential (`config.snsTopicArn`). */
  readonly snsTopicArn: string | undefined;
  /**
   * The provider account its callbacks must name: the WhatsApp business number's
   * `config.phoneNumberId` (`metadata.phone_number_id`), or Twilio's `config.accountSid` (`AccountSid`).
   */
  readonly account: string | undefined;
}

// Bounds the cache when callers keep naming new ids (someone probing URLs).
const MAX_CACHED = 10_000;
const PROVIDERS = new Set<string>(Object.values(Provider));
const CHANNELS = new Set<string>(Object.values(Channel));

/**
 * Credentials by id with their callback secrets opened, cached for INGEST_CREDENTIAL_CACHE_TTL_MS
 * (unknown ids too, so probing costs no query each time; concurrent loads share one query). A
 * database error is not cached and surfaces as UnavailableError (503: the provider retries).
 */
@Injectable()
export class CallbackCredentials {
  private readonly cache = new Map<
    string,
    { readonly expiresAt: number; readonly load: Promise<CallbackCredential | undefined> }
  >();

  constructor(
    private readonly repository: CallbackCredentialsRepository,
    private readonly secretBox: SecretBox,
    private readonly config: CallbacksConfig,
    private readonly logger: PinoLogger,
  ) {
    this.logger.setContext(CallbackCredentials.name);
  }

  load(id: string): Promise<CallbackCredential | undefined> {
    const now = Date.now();
    const cached = this.cache.get(id);
    if (cached !== undefined && cached.expiresAt > now) return cached.load;
    if (this.cache.size >= MAX_CACHED) this.cache.clear();
    const entry = { expiresAt: now + this.config.INGEST_CREDENTIAL_CACHE_TTL_MS, load: this.read(id) };
    this.cache.set(id, entry);
    entry.load.catch(() => {
      if (this.cache.get(id) === entry) this.cache.delete(id);
    });
    return entry.load;
  }

  private async read(id: string): Promise<CallbackCredential | undefined> {
    let stored;
    try {
      stored = await this.repository.findById(id);
    } catch (error: unknown) {
      throw new UnavailableError(
        CallbackErrorCode.CredentialsUnavailable,
        `credential ${id} could not be read: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (stored === undefined) return undefined;
    const { provider, channel } = stored;
    if (!PROVIDERS.has(provider) || !CHANNELS.has(channel)) return undefined;
    const config = isRecord(stored.config) ? stored.config : {};
    const text = (name: string): string | undefined => {
      const value = config[name];
      return typeof value === 'string' && value !== '' ? value : undefined;
    };
    // Twilio signs with the auth token, which is the send secret unless a callback secret is set.
    const sealed =
      stored.sealedCallbackSecret ?? (provider === (Provider.Twilio as string) ? stored.sealedSecret : null);
    return {
      id,
      provider: provider as Provider,
      channel: channel as Channel,
      verifySecret: sealed === null ? undefined : this.open(id, sealed),
      verifyToken:
        stored.sealedVerifyToken === null
          ? text('webhookVerifyToken')
          : this.open(id, stored.sealedVerifyToken),
      snsTopicArn: text('snsTopicArn'),
      account: accountOf(provider, config),
    };
  }

  private open(id: string, sealed: string): string | undefined {
    try {
      const secret = this.secretBox.open(sealed);
      return secret === '' ? undefined : secret;
    } catch (error: unknown) {
      if (!(error instanceof SecretUnreadableError)) throw error;
      // Its callbacks are refused until the secret is fixed; the message names the key id, never the secret.
      this.logger.warn(
        { credentialId: id, code: error.code },
        `callback secret cannot be opened: ${error.message}`,
      );
      return undefined;
    }
  }
}

function accountOf(provider: string, config: Readonly<Record<string, unknown>>): string | undefined {
  const name =
    provider === (Provider.WhatsAppCloud as string)
      ? 'phoneNumberId'
      : provider === (Provider.Twilio as string)
        ? 'accountSid'
        : undefined;
  const value = name === undefined ? undefined : config[name];
  // The sender accepts a phone number id written as a JSON number too.
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  return typeof text === 'string' && text !== '' ? text : undefined;
}
