import { createHash } from 'node:crypto';
import type { FieldIssue, ProviderEventV1, Provider } from '@ums/contracts';

/** Who a verified callback came through, and when it arrived. */
export interface CallbackContext {
  readonly provider: Provider;
  readonly credentialId: string;
  /** ISO 8601. */
  readonly receivedAt: string;
}

/**
 * A callback body read into provider events. `ignored` counts items that are valid but carry
 * nothing for us (Twilio's `queued`, Meta's `deleted`), so they are acknowledged and counted.
 */
export type CallbackParse =
  | { readonly ok: true; readonly events: ProviderEventV1[]; readonly ignored: number }
  | { readonly ok: false; readonly issues: readonly FieldIssue[] };

export const MAX_ERROR_CODE_LENGTH = 64;
export const MAX_ERROR_TEXT_LENGTH = 1024;
const MESSAGE_ID = /^\d{1,20}$/;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Our message id when the echoed value is one (a decimal id); anything else is not ours. */
export function ourMessageId(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return String(value);
  return typeof value === 'string' && MESSAGE_ID.test(value) ? value : undefined;
}

/** Collects refused fields while reading a body; a callback with any is refused whole. */
export class FieldReader {
  readonly issues: FieldIssue[] = [];

  refuse(field: string, reason: string): undefined {
    this.issues.push({ field, reason });
    return undefined;
  }

  /** A non-empty string up to `max` characters (numbers are read as their decimal text). */
  text(value: unknown, field: string, max: number): string | undefined {
    const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
    if (typeof text !== 'string' || text.length === 0)
      return this.refuse(field, 'must be a non-empty string');
    if (text.length > max) return this.refuse(field, `must be at most ${max} characters`);
    return text;
  }

  optionalText(value: unknown, field: string, max: number): string | undefined {
    return value === undefined || value === null || value === '' ? undefined : this.text(value, field, max);
  }

  /** Unix seconds (a decimal string or number) as ISO 8601. */
  unixSeconds(value: unknown, field: string): string | undefined {
    const text = typeof value === 'number' ? String(value) : value;
    if (typeof text !== 'string' || !/^\d{1,12}$/.test(text)) {
      return this.refuse(field, 'must be a Unix time in seconds');
    }
    return new Date(Number(text) * 1000).toISOString();
  }

  /** An ISO 8601 date-time, normalized to UTC with milliseconds. */
  isoTime(value: unknown, field: string): string | undefined {
    if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value)) {
      return this.refuse(field, 'must be an ISO 8601 date-time');
    }
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) return this.refuse(field, 'must be an ISO 8601 date-time');
    return new Date(ms).toISOString();
  }

  array(value: unknown, field: string): readonly unknown[] | undefined {
    if (!Array.isArray(value)) return this.refuse(field, 'must be an array');
    return value;
  }

  record(value: unknown, field: string): Record<string, unknown> | undefined {
    if (!isRecord(value)) return this.refuse(field, 'must be an object');
    return value;
  }
}

export function cut(text: string | undefined, max: number): string | undefined {
  return text === undefined ? undefined : text.slice(0, max);
}

/** Parses JSON bytes, or names why not. */
export function parseJsonBody(
  raw: Buffer,
): { ok: true; value: unknown } | { ok: false; issues: FieldIssue[] } {
  try {
    return { ok: true, value: JSON.parse(raw.toString('utf8')) as unknown };
  } catch (error: unknown) {
    const reason = error instanceof Error ? error.message : 'not valid JSON';
    return { ok: false, issues: [{ field: '(body)', reason: `must be valid JSON: ${reason}` }] };
  }
}

/** A stable event id from its parts (the same callback item always gives the same id). */
export function callbackEventId(...parts: readonly string[]): string {
  const id = parts.join(':');
  return id.length <= 200 ? id : `sha256:${createHash('sha256').update(id, 'utf8').digest('hex')}`;
}
