import type { Channel, CredentialConfigs, Provider } from '@ums/contracts';
import type { ProviderFailure, TemplateContent } from '@ums/domain';
import type { RedactedSecret } from './redacted-secret';

/** One message to hand to a provider: our id, its recipient and its content, already rendered. */
export interface OutgoingMessage {
  /** Our message id (decimal string): sent along as callback data / reference / tag. */
  readonly messageId: string;
  readonly channel: Channel;
  /** E.164 phone number (`+4915...`) or e-mail address. */
  readonly recipient: string;
  /** Rendered content: no placeholders left. */
  readonly content: TemplateContent;
}

/**
 * The provider took the message. `providerMessageId` is what its callbacks will name; null when
 * the provider answered success without one we could read (callbacks still carry our id).
 */
export interface AcceptedOutcome {
  readonly messageId: string;
  readonly kind: 'accepted';
  readonly providerMessageId: string | null;
}

/**
 * What happened to one message: accepted, retryable (reason, congestion, Retry-After) or permanent.
 * `request` numbers the provider request when it carried several messages, so that AIMD hears one
 * signal per request (`sendSignalsOf`).
 */
export type SendOutcome = (AcceptedOutcome | ({ readonly messageId: string } & ProviderFailure)) & {
  readonly request?: number;
};

/** Where a credential's requests go: the origin picks the connection pool, the path is a prefix. */
export interface ProviderEndpoint {
  /** `https://graph.facebook.com` (scheme, host and port only). */
  readonly origin: string;
  /** Path of the base URL without a trailing slash ('' for none). */
  readonly basePath: string;
}

/** A credential ready to send with: validated settings, the decrypted secret and its endpoint. */
export interface LoadedCredential<P extends Provider = Provider> {
  readonly id: string;
  readonly provider: P;
  readonly channel: Channel;
  readonly config: CredentialConfigs[P];
  readonly endpoint: ProviderEndpoint;
  readonly secret: RedactedSecret | undefined;
  /** The credential's rate limits, for the rate limiter (AIMD stays between floor and ceiling). */
  readonly limits: CredentialLimits;
}

export interface CredentialLimits {
  readonly ceiling: number;
  readonly floor: number;
  /** Messages per second for all of the tenant's sends, when capped. */
  readonly tenantCapPerSec: number | null;
}

/** How a send may be cut short: neither ever interrupts a request already started. */
export interface SendControl {
  /** Once aborted, no further request starts (those messages are retryable ABORTED, never sent). */
  readonly signal?: AbortSignal;
  /**
   * `performance.now()` after which no further request starts (retryable CLAIM_WINDOW_PASSED, never
   * sent): a request queued behind the credential's concurrency past its claim's window is not sent.
   */
  readonly startBy?: number;
  /**
   * Each message's slot from the rate limiter (`performance.now()`, in the order of the messages): a
   * request starts no earlier than the slot of its last message, so reserved tokens reach the provider
   * at the credential's rate. Missing: at once.
   */
  readonly slots?: readonly number[];
  /**
   * A request that cannot start within this many ms after its slot (timer lag, the credential's
   * concurrency) is not sent (retryable SLOT_MISSED, never sent): late, it would reach the provider
   * bunched with requests on time.
   */
  readonly lateAfterMs?: number;
}

/**
 * Sends messages through one provider. `send` returns exactly one outcome per message, in the
 * order given, and never throws for provider or network trouble (every failure is an outcome).
 * Any number of messages may be passed: single-message providers send them as concurrent
 * requests, bulk providers in requests of at most `maxBatch`.
 */
export interface ProviderAdapter<P extends Provider = Provider> {
  readonly provider: P;
  /** Messages per provider request (1 for providers without a bulk endpoint). */
  readonly maxBatch: number;
  send(
    credential: LoadedCredential<P>,
    messages: readonly OutgoingMessage[],
    control?: SendControl,
  ): Promise<SendOutcome[]>;
}

/** A message whose fate a status refresh asks the provider about. */
export interface StatusQuery {
  /** Our message id (decimal string), as sent along with the message. */
  readonly messageId: string;
  readonly recipient: string;
  /** The provider's id when the send's answer named one (SENT rows); null for UNKNOWN rows. */
  readonly providerMessageId: string | null;
  /** When the claim was taken: the provider cannot have received the message earlier. */
  readonly claimedAt: Date;
}

/**
 * What the provider knows of one message:
 * - `accepted`: it received the message (and may have reported delivery, read or failure since);
 * - `not-received`: it answers for the message and has no record of it: nothing was sent;
 * - `unknown`: it cannot tell (lookup failed, not yet visible): the row stays as it is.
 */
export type StatusLookup =
  | {
      readonly messageId: string;
      readonly kind: 'accepted';
      readonly providerMessageId: string | null;
      /** The furthest status the provider reports. */
      readonly status: 'sent' | 'delivered' | 'read' | 'failed';
      readonly errorCode?: string;
      readonly at?: Date;
    }
  | { readonly messageId: string; readonly kind: 'not-received' }
  | { readonly messageId: string; readonly kind: 'unknown'; readonly detail: string };

/**
 * A provider with a status API. `lookup` returns exactly one answer per query, in order, and never
 * throws for provider or network trouble (those are `unknown`).
 */
export interface ProviderStatusApi<P extends Provider = Provider> {
  readonly provider: P;
  /** Queries per provider request (1 for one message per lookup). */
  readonly maxLookupBatch: number;
  lookup(credential: LoadedCredential<P>, queries: readonly StatusQuery[]): Promise<StatusLookup[]>;
}
