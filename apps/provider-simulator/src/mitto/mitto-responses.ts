import type { ProviderAnswer } from '../sending/provider-answer';

/** An answer of the Mitto SMS API (docs/provider-shapes.md section 4). */
export type MittoAnswer = ProviderAnswer;

/** Mitto's `responseCode` values the simulator answers (0 = sent). */
export const MittoResponseCode = {
  Sent: 0,
  InternalError: 1,
  EmptyMessage: 3,
  EmptySender: 5,
  InvalidSender: 6,
  EmptyReceiver: 7,
  InvalidReceiver: 8,
} as const;

const refused = (status: number, responseCode: number, responseText: string): MittoAnswer => ({
  status,
  body: { responseCode, textLength: 0, responseText },
});

/** One message of an answer: sent with its id, or refused with its code. */
export type MittoMessageResult =
  | { readonly to: string; readonly id: string }
  | { readonly to: string; readonly responseCode: number; readonly responseText: string };

export const MittoAnswers = {
  sent: (id: string, to: string, textLength: number, nowMs: number): MittoAnswer => ({
    status: 200,
    body: {
      id,
      timestamp: new Date(nowMs).toISOString(),
      to,
      responseCode: MittoResponseCode.Sent,
      textLength,
      responseText: 'SMS sent',
    },
  }),
  bulk: (messages: readonly MittoMessageResult[], nowMs: number): MittoAnswer => ({
    status: 200,
    body: {
      responseCode: MittoResponseCode.Sent,
      responseText: 'SMS sent',
      messages: messages.map((m) => ({ ...m, timestamp: new Date(nowMs).toISOString() })),
    },
  }),
  /** Bad or missing X-Mitto-API-Key (undocumented by Mitto: our convention). */
  unauthorized: (): MittoAnswer => ({
    status: 401,
    body: { responseText: 'Missing or invalid X-Mitto-API-Key' },
  }),
  emptyMessage: (): MittoAnswer => refused(400, MittoResponseCode.EmptyMessage, 'Empty message'),
  emptySender: (): MittoAnswer => refused(400, MittoResponseCode.EmptySender, 'Empty sender'),
  invalidSender: (): MittoAnswer => refused(400, MittoResponseCode.InvalidSender, 'Invalid sender'),
  emptyReceiver: (): MittoAnswer => refused(400, MittoResponseCode.EmptyReceiver, 'Empty receiver'),
  invalidReceiver: (): MittoAnswer => refused(400, MittoResponseCode.InvalidReceiver, 'Invalid receiver'),
  /** Throttling: HTTP 429 with Retry-After (Mitto documents the status, not a body: ours). */
  throttled: (): MittoAnswer => ({
    status: 429,
    body: { responseText: 'Too many requests' },
    headers: { 'retry-after': '1' },
  }),
  internalError: (): MittoAnswer => refused(500, MittoResponseCode.InternalError, 'Internal error'),
  unknownReference: (reference: string): MittoAnswer => ({
    status: 404,
    body: { responseText: `No message with reference ${reference}` },
  }),
  badStatusQuery: (): MittoAnswer => ({ status: 400, body: { responseText: 'reference is required' } }),
} as const;
