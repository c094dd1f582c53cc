import type { ProviderAnswer } from '../sending/provider-answer';
/** An answer of the Mitto-style bulk endpoint (see docs/provider-shapes.md for its origin). */
export type MittoAnswer = ProviderAnswer;

/** Error codes of the Mitto-style API, as that provider answers them (not UMS codes). */
export type MittoErrorCode =
  'UNAUTHORIZED' | 'INVALID_SENDER' | 'INVALID_REQUEST' | 'THROTTLED' | 'TEMPORARY_ERROR' | 'INVALID_NUMBER';

const error = (
  status: number,
  code: MittoErrorCode,
  message: string,
  headers?: Record<string, string>,
): MittoAnswer => ({
  status,
  body: { code, message },
  ...(headers !== undefined ? { headers } : {}),
});

export type MittoItemResult =
  | { reference: string | null; status: 'accepted'; id: string }
  | { reference: string | null; status: 'rejected'; code: MittoErrorCode; message: string };

export const MittoAnswers = {
  results: (results: MittoItemResult[]): MittoAnswer => ({ status: 200, body: { results } }),
  unauthorized: (): MittoAnswer => error(401, 'UNAUTHORIZED', 'Missing or invalid X-Mitto-API-Key'),
  invalidSender: (from: string): MittoAnswer =>
    error(400, 'INVALID_SENDER', `Sender ${from} is not configured`),
  invalidRequest: (message: string): MittoAnswer => error(400, 'INVALID_REQUEST', message),
  throttled: (): MittoAnswer => error(429, 'THROTTLED', 'Too many requests', { 'retry-after': '1' }),
  temporaryError: (): MittoAnswer => error(503, 'TEMPORARY_ERROR', 'Temporary error, retry later'),
  invalidNumber: (reference: string | null): MittoItemResult => ({
    reference,
    status: 'rejected',
    code: 'INVALID_NUMBER',
    message: 'Invalid receiver',
  }),
  itemThrottled: (reference: string | null): MittoItemResult => ({
    reference,
    status: 'rejected',
    code: 'THROTTLED',
    message: 'Capacity exceeded, retry later',
  }),
} as const;
