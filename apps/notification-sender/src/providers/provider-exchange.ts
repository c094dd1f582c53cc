import { setTimeout as sleep } from 'node:timers/promises';
import { FailureReason, type Provider, SendOutcomeCode } from '@ums/contracts';
import { type ProviderFailure, type RetryableFailure, transportFailure } from '@ums/domain';
import type { ConcurrencyLimit } from './concurrency-limit';
import type { OutgoingMessage, ProviderEndpoint, SendControl, SendOutcome } from './provider-adapter';
import type { ProviderHttpClient, ProviderResponse } from './provider-http.client';
import type { ProviderRequest } from './provider-request';

export type Exchange =
  | { readonly ok: true; readonly response: ProviderResponse }
  | { readonly ok: false; readonly failure: ProviderFailure };

/** Sends one request; a request that got no answer becomes a transport failure (never a throw). */
export async function exchange(
  http: ProviderHttpClient,
  provider: Provider,
  endpoint: ProviderEndpoint,
  request: ProviderRequest,
  signal: AbortSignal | undefined,
): Promise<Exchange> {
  try {
    return {
      ok: true,
      response: await http.post(provider, endpoint, request.path, request.headers, request.body, signal),
    };
  } catch (error: unknown) {
    const code = (error as { code?: unknown } | null)?.code;
    const detail = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      failure: transportFailure(
        typeof code === 'string' ? code : undefined,
        detail,
        signal?.aborted === true,
      ),
    };
  }
}

/**
 * Whether a failure says the provider is overloaded or unreachable, so the rest of the same
 * send should not be attempted now: congestion (429, throttling codes, timeouts) or no connection.
 */
function stopsTheSend(outcome: SendOutcome): outcome is SendOutcome & RetryableFailure {
  return (
    outcome.kind === 'retryable' &&
    (outcome.congestion ||
      outcome.reason === FailureReason.NetworkError ||
      outcome.code === SendOutcomeCode.Aborted)
  );
}

function notAttempted(
  message: OutgoingMessage,
  code: string,
  detail: string,
  like?: RetryableFailure,
): SendOutcome {
  const outcome: SendOutcome = {
    messageId: message.messageId,
    kind: 'retryable',
    reason: like?.reason ?? FailureReason.Other,
    code,
    detail,
    // Only the request that met the trouble signals congestion: one signal per send, not per message.
    congestion: false,
    // Never sent, so safe to send again.
    ambiguous: false,
  };
  return like?.retryAfterMs === undefined ? outcome : { ...outcome, retryAfterMs: like.retryAfterMs };
}

/**
 * Sends `messages` in requests of `perRequest` messages (1 for single-message providers) under
 * the credential's concurrency limit, and returns one outcome per message in input order. Once a
 * request meets congestion or a dead connection, the requests of its slot not yet started are not sent
 * (retryable NOT_ATTEMPTED), so a provider that is down costs one timeout per send, not one per
 * message; after `control.signal` aborts, none are started (retryable ABORTED), nor after
 * `control.startBy` (retryable CLAIM_WINDOW_PASSED): checked when a request gets its place, so time
 * spent queued behind the credential's concurrency counts. A request waits for its messages' rate
 * slots (`control.slots`) before it queues, and does not start past `control.lateAfterMs` after
 * them (retryable SLOT_MISSED).
 */
export async function sendInRequests(
  messages: readonly OutgoingMessage[],
  perRequest: number,
  limit: ConcurrencyLimit,
  control: SendControl | undefined,
  sendRequest: (messages: readonly OutgoingMessage[]) => Promise<SendOutcome[]>,
): Promise<SendOutcome[]> {
  const requests = requestsOf(messages, perRequest, control?.slots);
  // Per slot: requests at later slots are later sends, as separate grants were before reservations.
  const stoppedBy = new Map<number | undefined, RetryableFailure>();
  const results = await Promise.all(
    requests.map(async ({ messages: request, slot }, index) => {
      // Not before its slot, and holding no place in the credential's concurrency meanwhile.
      const waitMs = (slot ?? 0) - performance.now();
      if (waitMs > 0) await sleep(waitMs);
      return limit.run(async (): Promise<SendOutcome[]> => {
        if (control?.signal?.aborted === true) {
          return request.map((m) =>
            notAttempted(m, SendOutcomeCode.Aborted, 'not sent: the send was cancelled'),
          );
        }
        if (control?.startBy !== undefined && performance.now() > control.startBy) {
          return request.map((m) =>
            notAttempted(m, SendOutcomeCode.ClaimWindowPassed, 'not sent: queued past its claim window'),
          );
        }
        if (slot !== undefined && late(control, slot)) {
          return request.map((m) =>
            notAttempted(
              m,
              SendOutcomeCode.SlotMissed,
              'not sent: could not start soon enough after its rate-limit slot',
            ),
          );
        }
        const cause = stoppedBy.get(slot);
        if (cause !== undefined) {
          return request.map((m) =>
            notAttempted(
              m,
              SendOutcomeCode.NotAttempted,
              `not sent: an earlier request failed (${cause.code})`,
              cause,
            ),
          );
        }
        const outcomes = await sendRequest(request);
        const stops = outcomes.find(stopsTheSend);
        if (stops !== undefined && !stoppedBy.has(slot)) stoppedBy.set(slot, stops);
        return request.length > 1 ? outcomes.map((outcome) => ({ ...outcome, request: index })) : outcomes;
      });
    }),
  );
  return results.flat();
}

/**
 * Consecutive messages of one slot, `perRequest` at most, per request: a request carrying several
 * messages never takes one ahead of its slot.
 */
function requestsOf(
  messages: readonly OutgoingMessage[],
  perRequest: number,
  slots: readonly number[] | undefined,
): { messages: readonly OutgoingMessage[]; slot: number | undefined }[] {
  const requests: { messages: OutgoingMessage[]; slot: number | undefined }[] = [];
  messages.forEach((message, index) => {
    const slot = slots?.[index];
    const open = requests[requests.length - 1];
    if (open !== undefined && open.slot === slot && open.messages.length < perRequest)
      open.messages.push(message);
    else requests.push({ messages: [message], slot });
  });
  return requests;
}

/** Whether a request starting now would be later than `control.lateAfterMs` after its slot. */
function late(control: SendControl | undefined, slot: number): boolean {
  return control?.lateAfterMs !== undefined && performance.now() - slot > control.lateAfterMs;
}
