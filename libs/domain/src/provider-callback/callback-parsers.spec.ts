import { FailureReason, MessageStatus, Provider, ProviderEventKind } from '@ums/contracts';
import { callbackFailureReason } from './callback-failure-reason';
import type { CallbackContext, CallbackParse } from './callback-parse';
import { callbackEventId } from './callback-parse';
import { parseMittoCallback } from './mitto-callback.parser';
import { parseSimulatorCallback } from './simulator-callback.parser';
import { parseTwilioCallback } from './twilio-callback.parser';
import { parseWhatsAppCallback } from './whatsapp-callback.parser';

const context = (provider: Provider): CallbackContext => ({
  provider,
  credentialId: 'cred_1',
  receivedAt: '2026-01-01T00:00:00.000Z',
});

function ok(parse: CallbackParse): Extract<CallbackParse, { ok: true }> {
  if (!parse.ok) throw new Error(`refused: ${JSON.stringify(parse.issues)}`);
  return parse;
}

function issues(parse: CallbackParse): string[] {
  if (parse.ok) throw new Error('accepted');
  return parse.issues.map((i) => `${i.field}: ${i.reason}`);
}

/** The Cloud API's `messages` webhook shape (Meta's webhook reference), as the simulator posts it. */
const meta = (value: Record<string, unknown>, field = 'messages'): unknown => ({
  object: 'whatsapp_business_account',
  entry: [
    {
      id: 'WABA-1',
      changes: [
        {
          field,
          value: {
            messaging_product: 'whatsapp',
            metadata: { display_phone_number: '15550783881', phone_number_id: '1065' },
            ...value,
          },
        },
      ],
    },
  ],
});

describe('parseWhatsAppCallback', () => {
  it('reads statuses with our id, billing objects ignored, failures with their code and reason', () => {
    const parse = ok(
      parseWhatsAppCallback(
        meta({
          statuses: [
            {
              id: 'wamid.1',
              status: 'delivered',
              timestamp: '1700000000',
              recipient_id: '4915100000001',
              biz_opaque_callback_data: '42',
              conversation: { id: 'C', origin: { type: 'marketing' } },
              pricing: { billable: true, pricing_model: 'PMP', category: 'marketing' },
            },
            {
              id: 'wamid.2',
              status: 'failed',
              timestamp: '1700000001',
              recipient_id: '4915100000002',
              biz_opaque_callback_data: 'not-ours',
              errors: [
                {
                  code: 131047,
                  title: 'Re-engagement message',
                  error_data: { details: 'More than 24 hours' },
                },
              ],
            },
            { id: 'wamid.3', status: 'deleted', timestamp: '1700000002', recipient_id: '1' },
          ],
        }),
        context(Provider.WhatsAppCloud),
      ),
    );
    expect(parse.ignored).toBe(1);
    expect(parse.events).toEqual([
      {
        eventId: 'wa:wamid.1:DELIVERED',
        kind: ProviderEventKind.Status,
        provider: Provider.WhatsAppCloud,
        credentialId: 'cred_1',
        status: {
          messageId: '42',
          providerMessageId: 'wamid.1',
          status: MessageStatus.Delivered,
          occurredAt: '2023-11-14T22:13:20.000Z',
        },
        receivedAt: '2026-01-01T00:00:00.000Z',
      },
      {
        eventId: 'wa:wamid.2:FAILED',
        kind: ProviderEventKind.Status,
        provider: Provider.WhatsAppCloud,
        credentialId: 'cred_1',
        status: {
          providerMessageId: 'wamid.2',
          status: MessageStatus.Failed,
          reason: FailureReason.Expired,
          errorCode: '131047',
          errorText: 'Re-engagement message: More than 24 hours',
          occurredAt: '2023-11-14T22:13:21.000Z',
        },
        receivedAt: '2026-01-01T00:00:00.000Z',
      },
    ]);
  });

  it('reads text, button and media messages, STOP as an opt-out', () => {
    const parse = ok(
      parseWhatsAppCallback(
        meta({
          contacts: [{ profile: { name: 'Ana' }, wa_id: '4915100000001' }],
          messages: [
            {
              from: '4915100000001',
              id: 'wamid.in1',
              timestamp: '1700000000',
              type: 'text',
              text: { body: 'STOP' },
            },
            {
              from: '4915100000001',
              id: 'wamid.in2',
              timestamp: '1700000000',
              type: 'button',
              button: { text: 'Yes', payload: 'Y' },
            },
            {
              from: '4915100000001',
              id: 'wamid.in3',
              timestamp: '1700000000',
              type: 'document',
              document: { id: 'media-1', mime_type: 'application/pdf', filename: 'a.pdf' },
            },
          ],
        }),
        context(Provider.WhatsAppCloud),
      ),
    );
    expect(
      parse.events.map((e) => [
        e.eventId,
        e.inbound?.text,
        e.inbound?.mediaRef,
        e.inbound?.optOut,
        e.inbound?.to,
      ]),
    ).toEqual([
      ['wa-in:wamid.in1', 'STOP', undefined, true, '15550783881'],
      ['wa-in:wamid.in2', 'Yes', undefined, false, '15550783881'],
      ['wa-in:wamid.in3', undefined, 'media-1', false, '15550783881'],
    ]);
  });

  it('counts changes of other fields as ignored', () => {
    expect(
      ok(parseWhatsAppCallback(meta({ x: 1 }, 'account_update'), context(Provider.WhatsAppCloud))),
    ).toEqual({
      ok: true,
      events: [],
      ignored: 1,
    });
  });

  it('refuses other objects and names every malformed field', () => {
    expect(
      issues(parseWhatsAppCallback({ object: 'page', entry: [] }, context(Provider.WhatsAppCloud))),
    ).toEqual(['object: must be whatsapp_business_account']);
    expect(issues(parseWhatsAppCallback([], context(Provider.WhatsAppCloud)))).toEqual([
      '(body): must be an object',
    ]);
    expect(
      issues(
        parseWhatsAppCallback(
          meta({ statuses: [{ id: '', status: 'sent', timestamp: 'yesterday' }], messages: {} }),
          context(Provider.WhatsAppCloud),
        ),
      ),
    ).toEqual([
      'entry[0].changes[0].value.statuses[0].id: must be a non-empty string',
      'entry[0].changes[0].value.statuses[0].timestamp: must be a Unix time in seconds',
      'entry[0].changes[0].value.messages: must be an array',
    ]);
  });
});

describe('parseTwilioCallback', () => {
  const status = (s: string, extra: [string, string][] = []): [string, string][] => [
    ['AccountSid', 'AC1'],
    ['MessageSid', 'SM1'],
    ['MessageStatus', s],
    ['SmsSid', 'SM1'],
    ['SmsStatus', s],
    ...extra,
  ];

  it.each([
    ['sent', MessageStatus.Sent],
    ['delivered', MessageStatus.Delivered],
    ['read', MessageStatus.Read],
    ['undelivered', MessageStatus.Failed],
    ['failed', MessageStatus.Failed],
    ['canceled', MessageStatus.Failed],
  ])('maps %s to %s, with our id from the query', (reported, expected) => {
    const [event] = ok(
      parseTwilioCallback(status(reported), { umsMessageId: '7' }, context(Provider.Twilio)),
    ).events;
    expect(event?.status).toMatchObject({ messageId: '7', providerMessageId: 'SM1', status: expected });
    expect(event?.eventId).toBe(`tw:SM1:${reported}`);
  });

  it('keeps the carrier error code on failures, mapped to our reason', () => {
    const [event] = ok(
      parseTwilioCallback(status('undelivered', [['ErrorCode', '30006']]), {}, context(Provider.Twilio)),
    ).events;
    expect(event?.status).toEqual({
      providerMessageId: 'SM1',
      status: MessageStatus.Failed,
      reason: FailureReason.InvalidRecipient,
      errorCode: '30006',
      occurredAt: '2026-01-01T00:00:00.000Z',
    });
  });

  it('acknowledges progress before sending without an event, and refuses unknown statuses', () => {
    expect(ok(parseTwilioCallback(status('queued'), {}, context(Provider.Twilio)))).toEqual({
      ok: true,
      events: [],
      ignored: 1,
    });
    expect(issues(parseTwilioCallback(status('exploded'), {}, context(Provider.Twilio)))).toEqual([
      "MessageStatus: unknown status 'exploded'",
    ]);
    expect(issues(parseTwilioCallback([['MessageStatus', 'sent']], {}, context(Provider.Twilio)))).toEqual([
      'MessageSid: must be a non-empty string',
    ]);
  });

  it('reads incoming messages with media', () => {
    const [event] = ok(
      parseTwilioCallback(
        [
          ['MessageSid', 'SMin'],
          ['SmsStatus', 'received'],
          ['From', 'whatsapp:+4915100000001'],
          ['To', 'whatsapp:+15550000000'],
          ['Body', 'Unsubscribe'],
          ['NumMedia', '1'],
          ['MediaUrl0', 'https://api.twilio.com/media/ME1'],
          ['MediaContentType0', 'image/png'],
        ],
        {},
        context(Provider.Twilio),
      ),
    ).events;
    expect(event).toMatchObject({
      eventId: 'tw-in:SMin',
      kind: ProviderEventKind.Inbound,
      inbound: {
        from: 'whatsapp:+4915100000001',
        to: 'whatsapp:+15550000000',
        text: 'Unsubscribe',
        mediaRef: 'https://api.twilio.com/media/ME1',
        mediaType: 'image/png',
        optOut: true,
      },
    });
  });
});

describe('parseMittoCallback', () => {
  it('reads a delivery report', () => {
    const [event] = ok(
      parseMittoCallback(
        {
          reference: '9',
          id: 'm-1',
          status: 'failed',
          code: 'UNDELIVERABLE',
          timestamp: '2026-02-03T04:05:06Z',
        },
        context(Provider.Mitto),
      ),
    ).events;
    expect(event?.status).toEqual({
      messageId: '9',
      providerMessageId: 'm-1',
      status: MessageStatus.Failed,
      reason: FailureReason.InvalidRecipient,
      errorCode: 'UNDELIVERABLE',
      occurredAt: '2026-02-03T04:05:06.000Z',
    });
  });

  it('reads the query parameters of a report (undelivered is a failure)', () => {
    const [event] = ok(
      parseMittoCallback(
        {
          id: 'm-2',
          reference: '10',
          to: '4915100000010',
          status: 'undelivered',
          code: 'UNDELIVERABLE',
          timestamp: '2026-02-03T04:05:06.000Z',
        },
        context(Provider.Mitto),
      ),
    ).events;
    expect(event?.status).toMatchObject({
      messageId: '10',
      providerMessageId: 'm-2',
      status: MessageStatus.Failed,
      errorCode: 'UNDELIVERABLE',
    });
  });

  it('names what is wrong', () => {
    expect(
      issues(
        parseMittoCallback({ reference: null, status: 'gone', timestamp: 'x' }, context(Provider.Mitto)),
      ),
    ).toEqual(['id: must be a non-empty string', 'timestamp: must be an ISO 8601 date-time']);
    expect(
      issues(
        parseMittoCallback(
          { id: 'm', status: 'gone', timestamp: '2026-02-03T04:05:06Z' },
          context(Provider.Mitto),
        ),
      ),
    ).toEqual(["status: unknown status 'gone'"]);
  });
});

describe('parseSimulatorCallback', () => {
  it('reads every event of a post', () => {
    const parse = ok(
      parseSimulatorCallback(
        {
          events: [
            {
              messageId: '1',
              providerMessageId: 'sim-1',
              status: 'sent',
              timestamp: '2026-02-03T04:05:06.007Z',
            },
            {
              messageId: null,
              providerMessageId: 'sim-2',
              status: 'failed',
              code: 'BLOCKED',
              timestamp: '2026-02-03T04:05:06.007Z',
            },
          ],
        },
        context(Provider.Simulator),
      ),
    );
    expect(parse.events.map((e) => e.status)).toEqual([
      {
        messageId: '1',
        providerMessageId: 'sim-1',
        status: MessageStatus.Sent,
        occurredAt: '2026-02-03T04:05:06.007Z',
      },
      {
        providerMessageId: 'sim-2',
        status: MessageStatus.Failed,
        reason: FailureReason.Blocked,
        errorCode: 'BLOCKED',
        occurredAt: '2026-02-03T04:05:06.007Z',
      },
    ]);
  });

  it('refuses a post whose events are not an array or not events', () => {
    expect(issues(parseSimulatorCallback({ events: {} }, context(Provider.Simulator)))).toEqual([
      'events: must be an array',
    ]);
    expect(
      issues(
        parseSimulatorCallback(
          { events: [{ providerMessageId: 'x', status: 'lost', timestamp: '2026-02-03T04:05:06Z' }] },
          context(Provider.Simulator),
        ),
      ),
    ).toEqual(["events[0].status: unknown status 'lost'"]);
  });
});

describe('callbackFailureReason and callbackEventId', () => {
  it('maps provider codes to our reasons, unknown codes to other', () => {
    expect(callbackFailureReason(Provider.WhatsAppCloud, '131026')).toBe(FailureReason.InvalidRecipient);
    expect(callbackFailureReason(Provider.WhatsAppCloud, '131050')).toBe(FailureReason.OptedOut);
    expect(callbackFailureReason(Provider.WhatsAppCloud, '368')).toBe(FailureReason.Blocked);
    expect(callbackFailureReason(Provider.Twilio, '30007')).toBe(FailureReason.Blocked);
    expect(callbackFailureReason(Provider.Twilio, '21610')).toBe(FailureReason.OptedOut);
    expect(callbackFailureReason(Provider.Mitto, 'THROTTLED')).toBe(FailureReason.Throttled);
    expect(callbackFailureReason(Provider.Simulator, 'EXPIRED')).toBe(FailureReason.Expired);
    expect(callbackFailureReason(Provider.Ses, 'Permanent/General')).toBe(FailureReason.InvalidRecipient);
    expect(callbackFailureReason(Provider.Twilio, '99999')).toBe(FailureReason.Other);
    expect(callbackFailureReason(Provider.Twilio, undefined)).toBe(FailureReason.Other);
  });

  it('keeps event ids within 200 characters, stable for the same parts', () => {
    const long = 'x'.repeat(256);
    expect(callbackEventId('wa', long, 'SENT')).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(callbackEventId('wa', long, 'SENT')).toBe(callbackEventId('wa', long, 'SENT'));
    expect(callbackEventId('wa', 'id', 'SENT')).toBe('wa:id:SENT');
  });
});
