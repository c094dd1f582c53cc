import { ProviderIds } from '../sending/provider-ids';

/**
 * An answer of the SES v2 API (REST-JSON): the error type travels in the x-amzn-ErrorType header
 * (what AWS SDKs read first) and, for clients that read the body, as `__type` next to `message`.
 */
export interface SesAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string>;
}

function sesError(status: number, type: string, message: string): SesAnswer {
  return {
    status,
    body: { __type: type, message },
    headers: { 'x-amzn-errortype': type, 'x-amzn-requestid': ProviderIds.traceId() },
  };
}

export const SesAnswers = {
  sent: (messageId: string): SesAnswer => ({
    status: 200,
    body: { MessageId: messageId },
    headers: { 'x-amzn-requestid': ProviderIds.traceId() },
  }),
  missingAuthentication: (): SesAnswer =>
    sesError(403, 'MissingAuthenticationTokenException', 'Missing Authentication Token'),
  unrecognizedClient: (): SesAnswer =>
    sesError(403, 'UnrecognizedClientException', 'The security token included in the request is invalid.'),
  badRequest: (message: string): SesAnswer => sesError(400, 'BadRequestException', message),
  unverifiedIdentity: (from: string, region: string | undefined): SesAnswer =>
    sesError(
      400,
      'MessageRejected',
      `Email address is not verified. The following identities failed the check in region ${(region ?? 'us-east-1').toUpperCase()}: ${from}`,
    ),
  addressRejected: (): SesAnswer => sesError(400, 'MessageRejected', 'Address blacklisted.'),
  tooManyRequests: (): SesAnswer => sesError(429, 'TooManyRequestsException', 'Too Many Requests'),
  serverError: (): SesAnswer =>
    sesError(
      500,
      'InternalFailure',
      'The request processing has failed because of an unknown error, exception or failure.',
    ),
} as const;
