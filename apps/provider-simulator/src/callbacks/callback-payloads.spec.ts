import { createHmac } from 'node:crypto';
import { Channel, Provider } from '@ums/contracts';
import type { SimulatedStatus } from '@ums/domain';
import { CREDENTIAL_DEFAULTS, type SimulatedCredential } from '../credentials/simulated-credential';
import { buildCallbackPosts, sendsCallbacks, statusCapabilities } from './callback-payloads';
import type { StatusEvent } from './status-event';

const credential = (
  provider: Provider,
  overrides: Partial<SimulatedCredential> = {},
): SimulatedCredential => ({
  id: 'c1',
  provider,
  account: { phoneNumberId: '106540352242922', accountSid: 'AC1', from: 'ACME' },
  secret: undefined,
  capacityTps: 10,
  advertisedTps: undefined,
  latency: CREDENTIAL_DEFAULTS.latency,
  error5xxRate: 0,
  rate429: 0,
  timeoutRate: 0,
  timeoutDelivers: false,
  permanentFailures: new Set(),
  callbackUrl: 'http://hooks.test/cb',
  callbackSecret: 'secret',
  callbacks: CREDENTIAL_DEFAULTS.callbacks,
  updatedAt: '',
  ...overrides,
});

const event = (n: number, status: SimulatedStatus = 'sent', url = 'http://hooks.test/cb'): StatusEvent => ({
  send: {
    messageId: `m${n}`,
    providerMessageId: `p${n}`,
    to: '+4915100000001',
    from: '+15017122661',
    channel: Channel.WhatsApp,
  },
  status,
  credentialId: 'c1',
  url,
  epoch: 0,
});

const NOW = Date.UTC(2025, 0, 1);

describe('buildCallbackPosts', () => {
  it('batches Meta statuses into webhooks of at most batchSize, each signed over its raw body', () => {
    const events = Array.from({ length: 5 }, (_, i) => event(i, i === 4 ? 'failed' : 'delivered'));
    const posts = buildCallbackPosts(
      credential(Provider.WhatsAppCloud),
      'http://hooks.test/cb',
      events,
      NOW,
      2,
    );
    expect(posts.map((p) => p.events)).toEqual([2, 2, 1]);
    for (const post of posts) {
      const expected = createHmac('sha256', 'secret').update(post.body).digest('hex');
      expect(post.headers['x-hub-signature-256']).toBe(`sha256=${expected}`);
    }
    const last = JSON.parse(posts[2]?.body ?? '{}') as {
      entry: {
        id: string;
        changes: { field: string; value: { metadata: unknown; statuses: unknown[] } }[];
      }[];
    };
    expect(last.entry[0]?.id).toBe('WABA-106540352242922');
    expect(last.entry[0]?.changes[0]?.value.metadata).toEqual({
      display_phone_number: '106540352242922',
      phone_number_id: '106540352242922',
    });
    expect(last.entry[0]?.changes[0]?.value.statuses).toEqual([
      {
        id: 'p4',
        status: 'failed',
        timestamp: String(NOW / 1000),
        recipient_id: '4915100000001',
        biz_opaque_callback_data: 'm4',
        errors: [
          {
            code: 131026,
            title: 'Message undeliverable',
            message: 'Message undeliverable',
            error_data: { details: 'Message Undeliverable.' },
          },
        ],
      },
    ]);
    // One URL: the posts follow each other.
    expect(new Set(posts.map((p) => p.orderKey)).size).toBe(1);
  });

  it('posts one Twilio form per status, signed over URL and sorted parameters', () => {
    const url = 'http://hooks.test/twilio?ums_message_id=m1';
    const posts = buildCallbackPosts(
      credential(Provider.Twilio, { callbackSecret: 'auth-token' }),
      url,
      [event(1, 'sent', url), event(1, 'failed', url)],
      NOW,
      500,
    );
    expect(posts).toHaveLength(2);
    const form = new URLSearchParams(posts[1]?.body);
    expect(Object.fromEntries(form)).toEqual({
      AccountSid: 'AC1',
      ApiVersion: '2010-04-01',
      From: '+15017122661',
      MessageSid: 'p1',
      MessageStatus: 'undelivered',
      SmsSid: 'p1',
      SmsStatus: 'undelivered',
      To: '+4915100000001',
      ErrorCode: '30003',
    });
    const signed =
      url +
      [...form.keys()]
        .sort()
        .map((k) => k + (form.get(k) ?? ''))
        .join('');
    expect(posts[1]?.headers['x-twilio-signature']).toBe(
      createHmac('sha1', 'auth-token').update(signed).digest('base64'),
    );
    expect(posts[0]?.orderKey).toBe(posts[1]?.orderKey);
  });

  it('posts Mitto reports one by one as query parameters of the registered URL with its token', () => {
    const posts = buildCallbackPosts(
      credential(Provider.Mitto),
      'http://hooks.test/cb?x=1',
      [event(1, 'delivered'), event(2, 'failed')],
      NOW,
      500,
    );
    const params = posts.map((p) => Object.fromEntries(new URL(p.url).searchParams));
    expect(params).toEqual([
      {
        x: '1',
        ums_token: 'secret',
        id: 'p1',
        reference: 'm1',
        to: expect.any(String) as string,
        status: 'delivered',
        timestamp: '2025-01-01T00:00:00.000Z',
      },
      {
        x: '1',
        ums_token: 'secret',
        id: 'p2',
        reference: 'm2',
        to: expect.any(String) as string,
        status: 'undelivered',
        code: 'UNDELIVERABLE',
        timestamp: '2025-01-01T00:00:00.000Z',
      },
    ]);
    expect(posts.map((p) => p.body)).toEqual(['', '']);
    expect(new URL(posts[0]?.url ?? '').pathname).toBe('/cb');
    expect(posts[0]?.orderKey).not.toBe(posts[1]?.orderKey);
  });

  it('posts native events arrays signed with X-Sim-Signature; unsigned without a secret', () => {
    const posts = buildCallbackPosts(
      credential(Provider.Simulator),
      'http://hooks.test/cb',
      [event(1), event(2, 'read')],
      NOW,
      500,
    );
    expect(JSON.parse(posts[0]?.body ?? '{}')).toEqual({
      events: [
        { messageId: 'm1', providerMessageId: 'p1', status: 'sent', timestamp: '2025-01-01T00:00:00.000Z' },
        { messageId: 'm2', providerMessageId: 'p2', status: 'read', timestamp: '2025-01-01T00:00:00.000Z' },
      ],
    });
    expect(posts[0]?.headers['x-sim-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    const unsigned = buildCallbackPosts(
      credential(Provider.Simulator, { callbackSecret: undefined }),
      'http://hooks.test/cb',
      [event(1)],
      NOW,
      500,
    );
    expect(unsigned[0]?.headers['x-sim-signature']).toBeUndefined();
  });

  it('sends nothing for SES, whose callbacks go through SNS', () => {
    expect(
      buildCallbackPosts(credential(Provider.Ses), 'http://hooks.test/cb', [event(1)], NOW, 500),
    ).toEqual([]);
    expect(sendsCallbacks(Provider.Ses)).toBe(false);
  });
});

describe('statusCapabilities', () => {
  it('reports read on WhatsApp only, and no sent from Mitto', () => {
    expect(statusCapabilities(Provider.WhatsAppCloud, Channel.WhatsApp)).toEqual({ sent: true, read: true });
    expect(statusCapabilities(Provider.Twilio, Channel.Sms)).toEqual({ sent: true, read: false });
    expect(statusCapabilities(Provider.Twilio, Channel.WhatsApp)).toEqual({ sent: true, read: true });
    expect(statusCapabilities(Provider.Mitto, Channel.Sms)).toEqual({ sent: false, read: false });
  });
});
