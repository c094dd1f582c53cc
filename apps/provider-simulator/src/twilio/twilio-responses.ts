/** An answer of Twilio's REST API: status and body (error codes at twilio.com/docs/errors). */
export interface TwilioAnswer {
  readonly status: number;
  readonly body: unknown;
}

function twilioError(status: number, code: number, message: string): TwilioAnswer {
  return {
    status,
    body: { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status },
  };
}

/** Twilio's date format: RFC 2822 with a numeric zone. */
export function twilioDate(date: Date): string {
  return date.toUTCString().replace('GMT', '+0000');
}

export interface CreatedMessage {
  readonly accountSid: string;
  readonly sid: string;
  readonly to: string;
  readonly from: string | undefined;
  readonly messagingServiceSid: string | undefined;
  readonly body: string;
}

export const TwilioAnswers = {
  /** 201 with the Message resource, as POST .../Messages.json returns it. */
  created: (m: CreatedMessage): TwilioAnswer => {
    const now = twilioDate(new Date());
    const uri = `/2010-04-01/Accounts/${m.accountSid}/Messages/${m.sid}`;
    return {
      status: 201,
      body: {
        account_sid: m.accountSid,
        api_version: '2010-04-01',
        body: m.body,
        date_created: now,
        date_sent: null,
        date_updated: now,
        direction: 'outbound-api',
        error_code: null,
        error_message: null,
        from: m.from ?? null,
        messaging_service_sid: m.messagingServiceSid ?? null,
        num_media: '0',
        num_segments: '1',
        price: null,
        price_unit: 'USD',
        sid: m.sid,
        // With a Messaging Service the message is "accepted" first, otherwise "queued".
        status: m.messagingServiceSid !== undefined ? 'accepted' : 'queued',
        subresource_uris: { media: `${uri}/Media.json` },
        to: m.to,
        uri: `${uri}.json`,
      },
    };
  },
  authenticate: (): TwilioAnswer => twilioError(401, 20003, 'Authenticate'),
  notFound: (path: string): TwilioAnswer =>
    twilioError(404, 20404, `The requested resource ${path} was not found`),
  invalidParameter: (message: string): TwilioAnswer => twilioError(400, 21651, message),
  missingTo: (): TwilioAnswer => twilioError(400, 21604, "A 'To' phone number is required."),
  missingFrom: (): TwilioAnswer => twilioError(400, 21603, "A 'From' phone number is required."),
  missingBody: (): TwilioAnswer => twilioError(400, 21602, 'Message body is required.'),
  invalidStatusCallback: (): TwilioAnswer => twilioError(400, 21609, 'Invalid StatusCallback URL'),
  invalidTo: (to: string): TwilioAnswer => twilioError(400, 21211, `Invalid 'To' Phone Number: ${to}`),
  tooManyRequests: (): TwilioAnswer => twilioError(429, 20429, 'Too Many Requests'),
  serverError: (): TwilioAnswer => twilioError(500, 20500, 'Internal Server Error'),
} as const;
