import { Channel, type Provider } from '@ums/contracts';
import type { LoadedCredential, StatusLookup, StatusQuery } from './provider-adapter';
import type { ProviderResponse } from './provider-http.client';
import { bodyExcerpt, codeField, isSuccess, jsonObject, stringField } from './provider-request';

type TwilioCredential = LoadedCredential<Provider.Twilio>;
type Accepted = Extract<StatusLookup, { kind: 'accepted' }>;

/** Messages per page of the list resource (Twilio's maximum). */
export const TWILIO_LIST_PAGE_SIZE = 1000;

/**
 * Twilio's message statuses as what became of the send: queued, accepted, scheduled, sending and sent
 * are the provider's (our SENT); `failed` (never sent by Twilio), `undelivered` and `canceled` are
 * failures; `delivered`, `read`. Anything else is not mapped (the row stays as it is).
 */
const STATUS: ReadonlyMap<string, Accepted['status']> = new Map([
  ['queued', 'sent'],
  ['accepted', 'sent'],
  ['scheduled', 'sent'],
  ['sending', 'sent'],
  ['sent', 'sent'],
  ['delivered', 'delivered'],
  ['read', 'read'],
  ['undelivered', 'failed'],
  ['failed', 'failed'],
  ['canceled', 'failed'],
]);

export function twilioAuthorization(credential: TwilioCredential): string {
  const basic = `${credential.config.accountSid}:${credential.secret?.reveal() ?? ''}`;
  return `Basic ${Buffer.from(basic, 'utf8').toString('base64')}`;
}

/** GET .../Messages/{Sid}.json: the Message resource of a send whose SID we know. */
export function twilioFetchPath(credential: TwilioCredential, sid: string): string {
  return `/2010-04-01/Accounts/${credential.config.accountSid}/Messages/${encodeURIComponent(sid)}.json`;
}

/** GET .../Messages.json?To=<recipient>&DateSent>=<claim day, UTC>&PageSize=1000: sends to one recipient. */
export function twilioListPath(credential: TwilioCredential, query: StatusQuery): string {
  const params = new URLSearchParams();
  params.set('To', twilioAddress(credential, query.recipient));
  params.set('DateSent>', query.claimedAt.toISOString().slice(0, 10));
  params.set('PageSize', String(TWILIO_LIST_PAGE_SIZE));
  return `/2010-04-01/Accounts/${credential.config.accountSid}/Messages.json?${params.toString()}`;
}

/** An address as Twilio shows it: `whatsapp:` prefixed on a WhatsApp credential. */
export function twilioAddress(credential: TwilioCredential, address: string): string {
  return credential.channel === Channel.WhatsApp && !address.startsWith('whatsapp:')
    ? `whatsapp:${address}`
    : address;
}

/** A Message resource as a lookup; undefined when its status is not one we map. */
export function twilioResourceLookup(
  messageId: string,
  resource: Record<string, unknown>,
): Accepted | undefined {
  const status = STATUS.get(stringField(resource, 'status') ?? '');
  if (status === undefined) return undefined;
  const errorCode = codeField(resource, 'error_code');
  const updated = Date.parse(stringField(resource, 'date_updated') ?? '');
  return {
    messageId,
    kind: 'accepted',
    providerMessageId: stringField(resource, 'sid') ?? null,
    status,
    ...(status === 'failed' ? { errorCode: errorCode ?? stringField(resource, 'status') } : {}),
    ...(Number.isNaN(updated) ? {} : { at: new Date(updated) }),
  };
}

/**
 * The answer to a fetch by SID. A SID Twilio does not know (404) is `unknown`, never not-received:
 * the send's own answer named it, so Twilio took the message (the resource may have been deleted).
 */
export function twilioFetchLookup(query: StatusQuery, response: ProviderResponse): StatusLookup {
  const json = jsonObject(response.body);
  if (!isSuccess(response.status) || json === undefined) {
    return {
      messageId: query.messageId,
      kind: 'unknown',
      detail: `fetch answered ${bodyExcerpt(response.status, response.body)}`,
    };
  }
  return (
    twilioResourceLookup(query.messageId, json) ?? {
      messageId: query.messageId,
      kind: 'unknown',
      detail: `unmapped Twilio status ${stringField(json, 'status') ?? 'missing'}`,
    }
  );
}

/** One page of the list resource: its messages and the next page's URI (null on the last). */
export function twilioListPage(
  response: ProviderResponse,
): { readonly messages: Record<string, unknown>[]; readonly next: string | null } | string {
  const json = jsonObject(response.body);
  const messages = json?.['messages'];
  if (!isSuccess(response.status) || !Array.isArray(messages)) {
    return `list answered ${bodyExcerpt(response.status, response.body)}`;
  }
  const next = stringField(json, 'next_page_uri');
  return {
    messages: messages.filter(
      (m): m is Record<string, unknown> => m !== null && typeof m === 'object' && !Array.isArray(m),
    ),
    next: next === undefined || next === '' ? null : next,
  };
}

/**
 * Which listed message is the send of an UNKNOWN row (no SID known; Twilio does not show the
 * StatusCallback URL that carries our id). A candidate is an outbound message of this credential's
 * sender (From or Messaging Service) to the row's recipient, created no earlier than the second of
 * the claim and no later than `windowMs` after it (a claim's request never starts after its window).
 * One candidate: that is the send. None: Twilio never received it. Several (the recipient got other
 * messages from the same sender in that window): unknown, the row stays UNKNOWN for an operator.
 */
export function twilioMatch(
  credential: TwilioCredential,
  query: StatusQuery,
  listed: readonly Record<string, unknown>[],
  windowMs: number,
): StatusLookup {
  const earliest = Math.floor(query.claimedAt.getTime() / 1000) * 1000;
  const latest = query.claimedAt.getTime() + windowMs;
  const to = twilioAddress(credential, query.recipient);
  const { from, messagingServiceSid } = credential.config;
  const candidates = listed.filter((m) => {
    const created = Date.parse(stringField(m, 'date_created') ?? '');
    const sender =
      messagingServiceSid !== undefined
        ? stringField(m, 'messaging_service_sid') === messagingServiceSid
        : stringField(m, 'from') === twilioAddress(credential, from ?? '');
    return (
      stringField(m, 'to') === to &&
      sender &&
      (stringField(m, 'direction') ?? 'outbound-api').startsWith('outbound') &&
      created >= earliest &&
      created <= latest
    );
  });
  const [only] = candidates;
  if (only === undefined) return { messageId: query.messageId, kind: 'not-received' };
  if (candidates.length > 1) {
    return {
      messageId: query.messageId,
      kind: 'unknown',
      detail: `${candidates.length} messages to the recipient in the claim's window: ambiguous`,
    };
  }
  return (
    twilioResourceLookup(query.messageId, only) ?? {
      messageId: query.messageId,
      kind: 'unknown',
      detail: `unmapped Twilio status ${stringField(only, 'status') ?? 'missing'}`,
    }
  );
}
