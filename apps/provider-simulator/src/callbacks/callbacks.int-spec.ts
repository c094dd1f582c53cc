import { createHmac } from 'node:crypto';
import { type ServiceProcess, startServiceProcess, waitUntil } from '@ums/testing';
import { CallbackRecorder, call, type ReceivedCallback } from '../test/simulator-http';

jest.setTimeout(120_000);

type Body = Record<string, unknown>;
interface MetaStatus {
  id: string;
  status: string;
  timestamp: string;
  recipient_id: string;
  biz_opaque_callback_data?: string;
  errors?: { code: number; title: string }[];
}
interface MetaWebhook {
  object: string;
  entry: {
    id: string;
    changes: { field: string; value: { metadata: { phone_number_id: string }; statuses: MetaStatus[] } }[];
  }[];
}
interface NativeEvent {
  messageId: string;
  providerMessageId: string;
  status: string;
  code?: string;
}

// Signatures are recomputed here from the providers' documented rules, independently of the simulator's code.
const hubSignature = (secret: string, raw: string): string =>
  `sha256=${createHmac('sha256', secret).update(raw, 'utf8').digest('hex')}`;
const twilioSignature = (token: string, url: string, params: URLSearchParams): string => {
  const sorted = [...params.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHmac('sha1', token)
    .update(url + sorted.map(([k, v]) => k + v).join(''), 'utf8')
    .digest('base64');
};

/** Statuses of each message in arrival order (posts in order, statuses within a post in order). */
function metaStatuses(received: readonly ReceivedCallback[]): Map<string, MetaStatus[]> {
  const byMessage = new Map<string, MetaStatus[]>();
  for (const post of received) {
    const webhook = JSON.parse(post.body) as MetaWebhook;
    for (const s of webhook.entry[0]?.changes[0]?.value.statuses ?? []) {
      const key = s.biz_opaque_callback_data ?? s.id;
      byMessage.set(key, [...(byMessage.get(key) ?? []), s]);
    }
  }
  return byMessage;
}

/** Status callbacks of the real simulator process, received by a local server, signatures verified. */
describe('status callbacks (simulator process)', () => {
  let sim: ServiceProcess;
  const recorder = new CallbackRecorder();

  const put = async (id: string, settings: Body): Promise<void> => {
    const answer = await call(`${sim.url}/_sim/credentials/${id}`, { method: 'PUT', body: settings });
    if (answer.status !== 201 && answer.status !== 200) throw new Error(`PUT ${id}: ${answer.text}`);
  };
  const whatsapp = (phoneNumberId: string, id: string, to = '4915100000001') =>
    call<{ messages: { id: string }[] }>(`${sim.url}/v21.0/${phoneNumberId}/messages`, {
      body: {
        messaging_product: 'whatsapp',
        to,
        type: 'text',
        text: { body: 'Hi' },
        biz_opaque_callback_data: id,
      },
      headers: { authorization: 'Bearer t' },
    });
  const statsOf = async (id: string): Promise<Body & { callbacks: Record<string, number> }> =>
    (await call<Body & { callbacks: Record<string, number> }>(`${sim.url}/_sim/stats?credentialId=${id}`))
      .body;

  beforeAll(async () => {
    await recorder.start();
    sim = await startServiceProcess({
      app: 'provider-simulator',
      env: { SIMULATOR_CALLBACK_RETRY_BASE_MS: '50' },
    });
  });

  afterAll(async () => {
    await sim?.process.stop();
    await recorder.stop();
  });

  it('posts Meta status webhooks (sent, delivered, read) signed with X-Hub-Signature-256', async () => {
    await put('cb-wa', {
      provider: 'whatsapp-cloud',
      account: { phoneNumberId: '3001', wabaId: 'WABA-1' },
      callbackUrl: `${recorder.url}/meta/ordered`,
      callbackSecret: 'meta-app-secret',
      callbacks: { delayMs: 20 },
    });
    const wamids = new Map<string, string>();
    for (const id of ['w1', 'w2', 'w3'])
      wamids.set(id, (await whatsapp('3001', id)).body.messages[0]?.id ?? '');
    await waitUntil(
      '9 statuses',
      () => [...metaStatuses(recorder.on('/meta/ordered')).values()].flat().length >= 9,
    );
    for (const post of recorder.on('/meta/ordered')) {
      expect(post.headers['x-hub-signature-256']).toBe(hubSignature('meta-app-secret', post.body));
      expect(post.headers['content-type']).toContain('application/json');
      const webhook = JSON.parse(post.body) as MetaWebhook;
      expect(webhook.object).toBe('whatsapp_business_account');
      expect(webhook.entry[0]?.id).toBe('WABA-1');
      expect(webhook.entry[0]?.changes[0]?.field).toBe('messages');
      expect(webhook.entry[0]?.changes[0]?.value.metadata.phone_number_id).toBe('3001');
    }
    const statuses = metaStatuses(recorder.on('/meta/ordered'));
    for (const [id, wamid] of wamids) {
      const list = statuses.get(id) ?? [];
      expect(list.map((s) => s.status)).toEqual(['sent', 'delivered', 'read']);
      for (const s of list) {
        expect(s).toMatchObject({
          id: wamid,
          recipient_id: '4915100000001',
          timestamp: expect.stringMatching(/^\d{10}$/) as string,
        });
      }
    }
    await waitUntil('counts settled', async () => (await statsOf('cb-wa')).callbacks['delivered'] === 9);
    expect((await statsOf('cb-wa')).callbacks).toMatchObject({ scheduled: 9, delivered: 9, failed: 0 });
  });

  it('sends read before delivered, and duplicates, at the configured rates', async () => {
    await put('cb-wa-chaos', {
      provider: 'whatsapp-cloud',
      account: { phoneNumberId: '3002' },
      callbackUrl: `${recorder.url}/meta/chaos`,
      callbackSecret: 'meta-app-secret',
      callbacks: { delayMs: 150, outOfOrderRate: 1, duplicateRate: 1 },
    });
    for (const id of ['x1', 'x2']) await whatsapp('3002', id);
    await waitUntil(
      '8 statuses',
      () => [...metaStatuses(recorder.on('/meta/chaos')).values()].flat().length >= 8,
    );
    for (const post of recorder.on('/meta/chaos')) {
      expect(post.headers['x-hub-signature-256']).toBe(hubSignature('meta-app-secret', post.body));
    }
    for (const list of metaStatuses(recorder.on('/meta/chaos')).values()) {
      const order = list.map((s) => s.status);
      expect(order).toHaveLength(4);
      expect(new Set(order)).toEqual(new Set(['sent', 'delivered', 'read']));
      // Out of order: the last two statuses are swapped, so read arrives before delivered.
      expect(order.indexOf('read')).toBeLessThan(order.indexOf('delivered'));
    }
  });

  it('reports failures with error 131026 at the failed rate', async () => {
    await put('cb-wa-fail', {
      provider: 'whatsapp-cloud',
      account: { phoneNumberId: '3003' },
      callbackUrl: `${recorder.url}/meta/failed`,
      callbacks: { delayMs: 10, failedRate: 1 },
    });
    await whatsapp('3003', 'f1');
    await waitUntil(
      '2 statuses',
      () => (metaStatuses(recorder.on('/meta/failed')).get('f1') ?? []).length >= 2,
    );
    const list = metaStatuses(recorder.on('/meta/failed')).get('f1') ?? [];
    expect(list.map((s) => s.status)).toEqual(['sent', 'failed']);
    expect(list[1]?.errors?.[0]?.code).toBe(131026);
    // No callbackSecret configured: posts are unsigned.
    expect(recorder.on('/meta/failed')[0]?.headers['x-hub-signature-256']).toBeUndefined();
  });

  it('posts Twilio status callbacks to the StatusCallback URL, signed with X-Twilio-Signature', async () => {
    const sid = 'AC00000000000000000000000000000002';
    await put('cb-tw', {
      provider: 'twilio',
      account: { accountSid: sid },
      secret: 'tw-auth-token',
      callbackSecret: 'tw-auth-token',
      callbacks: { delayMs: 10 },
    });
    const callbackUrl = `${recorder.url}/twilio/status?ums_message_id=tw1`;
    const created = await call<{ sid: string }>(`${sim.url}/2010-04-01/Accounts/${sid}/Messages.json`, {
      body: new URLSearchParams({
        To: '+4915100000002',
        From: '+15017122661',
        Body: 'Hi',
        StatusCallback: callbackUrl,
      }).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${sid}:tw-auth-token`).toString('base64')}`,
      },
    });
    expect(created.status).toBe(201);
    await waitUntil('2 Twilio callbacks', () => recorder.on('/twilio/status').length >= 2);
    const posts = recorder.on('/twilio/status');
    expect(posts.map((p) => p.path)).toEqual([
      '/twilio/status?ums_message_id=tw1',
      '/twilio/status?ums_message_id=tw1',
    ]);
    const params = posts.map((p) => new URLSearchParams(p.body));
    for (const [i, post] of posts.entries()) {
      const form = params[i] as URLSearchParams;
      expect(post.headers['x-twilio-signature']).toBe(twilioSignature('tw-auth-token', callbackUrl, form));
      expect(post.headers['content-type']).toContain('application/x-www-form-urlencoded');
      expect(Object.fromEntries(form)).toMatchObject({
        MessageSid: created.body.sid,
        SmsSid: created.body.sid,
        AccountSid: sid,
        To: '+4915100000002',
        From: '+15017122661',
        ApiVersion: '2010-04-01',
      });
    }
    // SMS has no read receipts.
    expect(params.map((p) => p.get('MessageStatus'))).toEqual(['sent', 'delivered']);
  });

  it('posts Mitto delivery reports as query parameters of the registered URL, with its token', async () => {
    await put('cb-mitto', {
      provider: 'mitto',
      account: { from: 'ACME' },
      callbackUrl: `${recorder.url}/mitto?account=acme`,
      callbackSecret: 'mitto-shared-token',
      callbacks: { delayMs: 10 },
    });
    const sent = await call<{ id: string }>(`${sim.url}/sms`, {
      body: { from: 'ACME', to: '4915100000003', text: 'Hi', reference: 'mt1' },
      headers: { 'x-mitto-api-key': 'k' },
    });
    await waitUntil('Mitto report', () => recorder.on('/mitto').length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const posts = recorder.on('/mitto');
    // Delivered only: Mitto reports no "sent".
    expect(posts).toHaveLength(1);
    expect(posts[0]?.body).toBe('');
    const params = Object.fromEntries(new URL(posts[0]?.path ?? '', 'http://x').searchParams);
    expect(params).toEqual({
      account: 'acme',
      ums_token: 'mitto-shared-token',
      id: sent.body.id,
      reference: 'mt1',
      to: '4915100000003',
      status: 'delivered',
      timestamp: expect.any(String) as string,
    });
  });

  it('posts native events in batches, signed with X-Sim-Signature; read only on WhatsApp', async () => {
    await put('cb-native', {
      provider: 'simulator',
      callbackUrl: `${recorder.url}/native`,
      callbackSecret: 'native-secret',
      callbacks: { delayMs: 30 },
    });
    const messages = Array.from({ length: 10 }, (_, i) => ({
      messageId: `nb${i}`,
      to: `+49152${i}`,
      channel: i === 0 ? 'whatsapp' : 'sms',
    }));
    expect(
      (await call(`${sim.url}/sim/v1/messages`, { body: { credentialId: 'cb-native', messages } })).status,
    ).toBe(200);
    const events = (): NativeEvent[] =>
      recorder.on('/native').flatMap((p) => (JSON.parse(p.body) as { events: NativeEvent[] }).events);
    await waitUntil('21 native events', () => events().length >= 21);
    for (const post of recorder.on('/native')) {
      expect(post.headers['x-sim-signature']).toBe(hubSignature('native-secret', post.body));
    }
    // All ten sends were accepted in one request, so their "sent" statuses share one post.
    expect(recorder.on('/native').length).toBeLessThan(events().length);
    const statusesOf = (id: string): string[] =>
      events()
        .filter((e) => e.messageId === id)
        .map((e) => e.status);
    expect(statusesOf('nb0')).toEqual(['sent', 'delivered', 'read']);
    expect(statusesOf('nb1')).toEqual(['sent', 'delivered']);
    expect(events()).toHaveLength(21);
  });

  it('retries a callback post that failed, unchanged', async () => {
    recorder.failFirst('/flaky', 2);
    await put('cb-flaky', {
      provider: 'simulator',
      callbackUrl: `${recorder.url}/flaky`,
      callbackSecret: 'native-secret',
      callbacks: { delayMs: 0, deliveredRate: 0 },
    });
    await call(`${sim.url}/sim/v1/messages`, {
      body: { credentialId: 'cb-flaky', messages: [{ messageId: 'r1', to: '+1' }] },
    });
    await waitUntil('retried callback', () => recorder.on('/flaky').length >= 1);
    const post = recorder.on('/flaky')[0];
    expect(post?.headers['x-sim-signature']).toBe(hubSignature('native-secret', post?.body ?? ''));
    await waitUntil('counts settled', async () => (await statsOf('cb-flaky')).callbacks['delivered'] === 1);
    expect((await statsOf('cb-flaky')).callbacks).toMatchObject({
      scheduled: 1,
      delivered: 1,
      retries: 2,
      posts: 3,
      failedPosts: 0,
    });
  });

  it('gives up after the last attempt and counts the failure', async () => {
    await put('cb-dead', {
      provider: 'simulator',
      // Nothing listens on port 1.
      callbackUrl: 'http://127.0.0.1:1/dead',
      callbacks: { delayMs: 0, deliveredRate: 0 },
    });
    await call(`${sim.url}/sim/v1/messages`, {
      body: { credentialId: 'cb-dead', messages: [{ messageId: 'g1', to: '+1' }] },
    });
    await waitUntil('failure counted', async () => (await statsOf('cb-dead')).callbacks['failed'] === 1, {
      timeoutMs: 30_000,
    });
    // Four attempts by default: the first and three retries.
    expect((await statsOf('cb-dead')).callbacks).toMatchObject({
      scheduled: 1,
      failed: 1,
      failedPosts: 1,
      retries: 3,
      posts: 4,
    });
  });
});
