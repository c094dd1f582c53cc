import { ProviderIds } from '../sending/provider-ids';

/** An answer of the Graph API: status and body (Cloud API error codes reference). */
export interface MetaAnswer {
  readonly status: number;
  readonly body: unknown;
}

function metaError(
  status: number,
  code: number,
  message: string,
  details?: string,
  type = 'OAuthException',
  subcode?: number,
): MetaAnswer {
  return {
    status,
    body: {
      error: {
        message,
        type,
        code,
        ...(details !== undefined ? { error_data: { messaging_product: 'whatsapp', details } } : {}),
        ...(subcode !== undefined ? { error_subcode: subcode } : {}),
        fbtrace_id: ProviderIds.traceId(),
      },
    },
  };
}

/**
 * Meta answers throttling with HTTP 400 (not 429) and code 130429; clients must classify by
 * error.code, as Meta advises, never by the HTTP status alone.
 */
export const WhatsAppAnswers = {
  accepted: (to: string, wamid: string, template: boolean): MetaAnswer => ({
    status: 200,
    body: {
      messaging_product: 'whatsapp',
      contacts: [{ input: to, wa_id: to.replace(/^\+/, '') }],
      messages: [template ? { id: wamid, message_status: 'accepted' } : { id: wamid }],
    },
  }),
  unknownPhoneNumber: (phoneNumberId: string): MetaAnswer =>
    metaError(
      400,
      100,
      `Unsupported post request. Object with ID '${phoneNumberId}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
      undefined,
      'GraphMethodException',
      33,
    ),
  invalidToken: (): MetaAnswer =>
    metaError(401, 190, 'Invalid OAuth access token - Cannot parse access token'),
  invalidParameter: (details: string): MetaAnswer => metaError(400, 100, '(#100) Invalid parameter', details),
  throttled: (): MetaAnswer =>
    metaError(400, 130429, '(#130429) Rate limit hit', 'Cloud API message throughput has been reached.'),
  serverError: (): MetaAnswer =>
    metaError(500, 131000, '(#131000) Something went wrong', 'Something went wrong'),
  undeliverable: (): MetaAnswer =>
    metaError(400, 131026, '(#131026) Message Undeliverable.', 'Message Undeliverable.'),
} as const;
