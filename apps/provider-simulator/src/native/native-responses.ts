import type { ProviderAnswer } from '../sending/provider-answer';
/** An answer of the simulator's own bulk API (provider `simulator`). */
export type NativeAnswer = ProviderAnswer;

/** Error codes of the simulator's own bulk API, as a provider of ours would answer (not UMS codes). */
export type NativeErrorCode =
  | 'UNKNOWN_CREDENTIAL'
  | 'UNAUTHORIZED'
  | 'INVALID_REQUEST'
  | 'THROTTLED'
  | 'TEMPORARY_ERROR'
  | 'INVALID_NUMBER';

const error = (
  status: number,
  code: NativeErrorCode,
  message: string,
  extra: Record<string, unknown> = {},
): NativeAnswer => ({
  status,
  body: { error: { code, message, ...extra } },
});

export type NativeItemResult =
  | { messageId: string; status: 'accepted'; providerMessageId: string }
  | { messageId: string; status: 'rejected'; code: NativeErrorCode; retryable: boolean };

export const NativeAnswers = {
  results: (results: NativeItemResult[]): NativeAnswer => ({ status: 200, body: { results } }),
  unknownCredential: (id: string): NativeAnswer =>
    error(404, 'UNKNOWN_CREDENTIAL', `No simulated credential ${id} with provider simulator`),
  unauthorized: (): NativeAnswer => error(401, 'UNAUTHORIZED', 'Missing or invalid bearer token'),
  invalidRequest: (message: string): NativeAnswer => error(400, 'INVALID_REQUEST', message),
  throttled: (): NativeAnswer => ({
    ...error(429, 'THROTTLED', 'Capacity exceeded, retry later', { retryAfterSeconds: 1 }),
    headers: { 'retry-after': '1' },
  }),
  temporaryError: (): NativeAnswer => error(503, 'TEMPORARY_ERROR', 'Temporary error, retry later'),
  invalidNumber: (messageId: string): NativeItemResult => ({
    messageId,
    status: 'rejected',
    code: 'INVALID_NUMBER',
    retryable: false,
  }),
  itemThrottled: (messageId: string): NativeItemResult => ({
    messageId,
    status: 'rejected',
    code: 'THROTTLED',
    retryable: true,
  }),
} as const;
