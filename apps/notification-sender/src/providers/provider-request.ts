import type { IncomingHttpHeaders } from 'node:http';
import { FailureReason, SendOutcomeCode } from '@ums/contracts';
import { type PermanentFailure, parseRetryAfter, type ProviderFailure } from '@ums/domain';
import type { OutgoingMessage, SendOutcome } from './provider-adapter';
import type { ProviderResponse } from './provider-http.client';

/** One HTTP request to a provider, relative to the credential's endpoint. */
export interface ProviderRequest {
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** A request, or why the message cannot be sent through this provider at all. */
export type BuiltRequest =
  | { readonly ok: true; readonly request: ProviderRequest }
  | { readonly ok: false; readonly failure: PermanentFailure };

/** A message this provider cannot carry (wrong channel, missing text or subject): never sent. */
export function unsendable(
  code: SendOutcomeCode.ChannelUnsupported | SendOutcomeCode.ContentInvalid,
  detail: string,
): PermanentFailure {
  return { kind: 'permanent', reason: FailureReason.Rejected, code, detail };
}

export function outcomeFor(message: OutgoingMessage, failure: ProviderFailure): SendOutcome {
  return { messageId: message.messageId, ...failure };
}

/** The JSON of a provider's answer as a plain object, or undefined when it is not one. */
export function jsonObject(body: string): Record<string, unknown> | undefined {
  if (body === '') return undefined;
  try {
    const value: unknown = JSON.parse(body);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    // Not JSON (an HTML error page from a proxy): the caller falls back to the status.
    return undefined;
  }
}

export function objectField(value: unknown, key: string): Record<string, unknown> | undefined {
  const field =
    value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return field !== null && typeof field === 'object' && !Array.isArray(field)
    ? (field as Record<string, unknown>)
    : undefined;
}

export function stringField(value: unknown, key: string): string | undefined {
  const field =
    value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return typeof field === 'string' ? field : undefined;
}

/** A code the provider sent as a number or a string, as text. */
export function codeField(value: unknown, key: string): string | undefined {
  const field =
    value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  if (typeof field === 'number' && Number.isFinite(field)) return String(field);
  return typeof field === 'string' && field !== '' ? field : undefined;
}

/** A short excerpt of a body that is not the JSON we expected, for the failure's detail. */
export function bodyExcerpt(status: number, body: string): string {
  const text = body.replace(/\s+/g, ' ').trim();
  return text === '' ? `HTTP ${status}` : `HTTP ${status}: ${text.slice(0, 200)}`;
}

export function retryAfterMs(headers: IncomingHttpHeaders, nowMs: number): number | undefined {
  return parseRetryAfter(headers['retry-after'], nowMs);
}

export function isSuccess(status: number): boolean {
  return status >= 200 && status <= 299;
}

/** A bulk request and the messages left out of it because the provider cannot carry them. */
export interface BulkRequest {
  /** Undefined when no message was sendable. */
  readonly request: ProviderRequest | undefined;
  readonly refused: ReadonlyMap<string, PermanentFailure>;
}

/** An item a bulk answer does not mention: it may have been accepted, so it is retried as ambiguous. */
export function missingResult(detail: string): ProviderFailure {
  return {
    kind: 'retryable',
    reason: FailureReason.ProviderError,
    code: SendOutcomeCode.MissingResult,
    detail,
    congestion: false,
    ambiguous: true,
  };
}

/**
 * One outcome per message of a bulk send, in input order: refused messages keep their refusal,
 * the others get `sent(message)` (from the answer's items) or the whole request's failure.
 */
export function bulkOutcomes(
  messages: readonly OutgoingMessage[],
  refused: ReadonlyMap<string, PermanentFailure>,
  sent: (message: OutgoingMessage) => SendOutcome,
): SendOutcome[] {
  return messages.map((message) => {
    const refusal = refused.get(message.messageId);
    return refusal === undefined ? sent(message) : outcomeFor(message, refusal);
  });
}

/** Items of a bulk answer by the key naming our message id (the first item wins if repeated). */
export function itemsByKey(results: unknown, key: string): Map<string, Record<string, unknown>> {
  const byKey = new Map<string, Record<string, unknown>>();
  if (!Array.isArray(results)) return byKey;
  for (const item of results as unknown[]) {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) continue;
    const id = stringField(item, key);
    if (id !== undefined && !byKey.has(id)) byKey.set(id, item as Record<string, unknown>);
  }
  return byKey;
}

/** How a bulk provider names things in the items of its answer. */
export interface BulkItemShape {
  /** The item field holding our message id. */
  readonly keyField: string;
  /** The item field holding the provider's message id. */
  readonly providerIdField: string;
  /** Words for "no result" details, e.g. "reference". */
  readonly keyLabel: string;
  /** A rejected item's failure. */
  readonly rejected: (item: Record<string, unknown> | undefined) => ProviderFailure;
}

/**
 * Outcomes of a bulk answer with per-item results (`{results: [{<key>, status: accepted|rejected, ...}]}`):
 * accepted items, rejected items classified alone, and a missing item as an ambiguous failure.
 */
export function bulkItemOutcomes(
  messages: readonly OutgoingMessage[],
  refused: ReadonlyMap<string, PermanentFailure>,
  response: ProviderResponse,
  json: Record<string, unknown> | undefined,
  shape: BulkItemShape,
): SendOutcome[] {
  const results = json?.['results'];
  const byKey = itemsByKey(results, shape.keyField);
  const unreadable = Array.isArray(results) ? undefined : bodyExcerpt(response.status, response.body);
  return bulkOutcomes(messages, refused, (message): SendOutcome => {
    const item = byKey.get(message.messageId);
    const status = stringField(item, 'status');
    if (status === 'accepted') {
      return {
        messageId: message.messageId,
        kind: 'accepted',
        providerMessageId: stringField(item, shape.providerIdField) ?? null,
      };
    }
    const failure =
      status === 'rejected'
        ? shape.rejected(item)
        : missingResult(
            unreadable ?? `no result for ${shape.keyLabel} ${message.messageId} (status ${status ?? 'none'})`,
          );
    return outcomeFor(message, failure);
  });
}

/** Outcomes of a bulk send whose every message was refused before any request. */
export function refusedOutcomes(
  messages: readonly OutgoingMessage[],
  refused: ReadonlyMap<string, PermanentFailure>,
): SendOutcome[] {
  return messages.map((message) =>
    outcomeFor(
      message,
      refused.get(message.messageId) ?? unsendable(SendOutcomeCode.ContentInvalid, 'not sendable'),
    ),
  );
}
