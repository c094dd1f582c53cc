import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  Channel,
  type DeadLetterV1,
  type InboundMessageV1,
  RunLifecycleEvent,
  type RunLifecycleV1,
  RunState,
  type SubscriberAlertV1,
  Topics,
} from '@ums/contracts';
import { type KafkaNames, SecretBox } from '@ums/platform';
import { LoopbackSubscriber, type ServiceProcess, sumMetric, testKafka, waitUntil } from '@ums/testing';
import type { Consumer, Producer } from 'kafkajs';
import type { DataSource } from 'typeorm';
import { DispatcherFixture, statusEvent } from './test/dispatcher-fixture';

jest.setTimeout(240_000);

interface SubscriberBody {
  id: string;
  state: string;
  secret?: string;
  failuresInWindow?: number;
  lastError: string | null;
  lastSuccessAt: string | null;
  eventTypes: string[];
  campaignId: string | null;
}

const RETRY_DELAYS_MS = [300, 600, 1200, 2400, 4800];

describe('webhook-dispatcher: signed deliveries, retries, tombstone and resurrect (real process)', () => {
  let fixture: DispatcherFixture;
  let ds: DataSource;
  let names: KafkaNames;
  let producer: Producer;
  let observer: Consumer;
  let dispatcher: ServiceProcess;
  const alerts: SubscriberAlertV1[] = [];
  const deadLetters: DeadLetterV1[] = [];

  beforeAll(async () => {
    fixture = await DispatcherFixture.start('webhook_dispatcher', {
      WEBHOOK_RETRY_DELAYS_MS: RETRY_DELAYS_MS.join(','),
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_FAILURE_THRESHOLD: '20',
      WEBHOOK_SUBSCRIBER_REFRESH_MS: '200',
      WEBHOOK_SWEEP_TICK_MS: '500',
      WEBHOOK_PENDING_LEASE_MS: '4000',
      WEBHOOK_SECRET_GRACE_MS: '600000',
      // One day: no row written by these tests is that old, only the retention test's own.
      WEBHOOK_DELIVERED_RETENTION_MS: '86400000',
      WEBHOOK_RETENTION_TICK_MS: '300',
    });
    ({ ds, names, producer, dispatcher } = fixture);
    observer = testKafka().consumer({ groupId: `observer-${randomBytes(4).toString('hex')}` });
    await observer.connect();
    await observer.subscribe({
      topics: [names.topic(Topics.subscriberAlerts.name), names.topic(Topics.deadLetters.name)],
      fromBeginning: true,
    });
    await observer.run({
      eachMessage: async ({ topic, message }) => {
        const value: unknown = JSON.parse(String(message.value));
        if (topic === names.topic(Topics.subscriberAlerts.name)) alerts.push(value as SubscriberAlertV1);
        else deadLetters.push(value as DeadLetterV1);
        await Promise.resolve();
      },
    });
  });

  afterAll(async () => {
    await observer?.disconnect();
    await fixture?.stop();
  });

  /** The API with the operator key, acting for `tenant` when given (creates need one). */
  const api = <T>(
    method: string,
    path: string,
    body?: unknown,
    tenant?: string,
  ): Promise<{ status: number; body: T }> =>
    fixture.api<T>(method, path, body, tenant === undefined ? {} : { tenant });

  const subscriberFor = (
    tenantId: string,
    extra: Record<string, unknown> = {},
  ): Promise<{ server: LoopbackSubscriber; id: string }> => fixture.subscribe(tenantId, extra);

  const publishStatuses = (tenantId: string, campaignId: string, ids: readonly string[]): Promise<void> =>
    fixture.publishStatuses(ids.map((eventId, i) => statusEvent(eventId, i, tenantId, campaignId)));

  const state = async (id: string): Promise<SubscriberBody> =>
    (await api<SubscriberBody>('GET', `/v1/subscribers/${id}`)).body;

  const deliveryStates = async (subscriberId: string): Promise<Record<string, number>> => {
    const rows: { state: string; n: number | string }[] = await ds.query(
      'SELECT state, COUNT(*) AS n FROM deliveries WHERE subscriber_id = ? GROUP BY state',
      [subscriberId],
    );
    return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
  };

  /** Deliveries still to be attempted (PENDING or RETRYING rows). */
  const owed = async (subscriberId: string): Promise<number> => {
    const states = await deliveryStates(subscriberId);
    return (states['PENDING'] ?? 0) + (states['RETRYING'] ?? 0);
  };

  const eventIds = (prefix: string, n: number): string[] =>
    Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(4, '0')}`);

  // First: a pass ends at the first row younger than the retention (rows are written in time order), so
  // these back-dated rows must come before the rows the other tests write.
  it('deletes DELIVERED rows past the retention in the running process, and keeps owed ones', async () => {
    await ds.query(
      `INSERT INTO deliveries (subscriber_id, event_id, event_type, payload, state, attempts, delivered_at, created_at)
       VALUES ('sub_retention', 'retention-old', 'message.status', '{}', 'DELIVERED', 1,
               UTC_TIMESTAMP(3) - INTERVAL 2 DAY, UTC_TIMESTAMP(3) - INTERVAL 2 DAY),
              ('sub_retention', 'retention-missed', 'message.status', '{}', 'MISSED', 0,
               NULL, UTC_TIMESTAMP(3) - INTERVAL 2 DAY),
              ('sub_retention', 'retention-young', 'message.status', '{}', 'DELIVERED', 1,
               UTC_TIMESTAMP(3) - INTERVAL 1 HOUR, UTC_TIMESTAMP(3) - INTERVAL 1 HOUR)`,
    );
    const left = async (): Promise<string[]> =>
      (
        (await ds.query(
          "SELECT event_id FROM deliveries WHERE subscriber_id = 'sub_retention' ORDER BY event_id",
        )) as { event_id: string }[]
      ).map((r) => r.event_id);
    await waitUntil('the old DELIVERED row deleted', async () => !(await left()).includes('retention-old'), {
      timeoutMs: 30_000,
    });
    expect(await left()).toEqual(['retention-missed', 'retention-young']);
    // The row is gone once MariaDB commits the DELETE; the process counts it when the reply reaches it,
    // which on a loaded host can be after this test's next request.
    const pruned = /^ums_webhook_deliveries_pruned_total\{[^}]*\} [1-9]/m;
    await waitUntil('the prune counted in /metrics', async () =>
      pruned.test(await (await fetch(`${dispatcher.managementUrl}/metrics`)).text()),
    );
  });

  it('manages subscribers: validation by field, secret shown once, update, rotation with both secrets valid, delete', async () => {
    const refused = await api<{ error: { code: string; fields: { field: string; reason: string }[] } }>(
      'POST',
      '/v1/subscribers',
      {
        url: 'http://hooks.example.com/x',
        eventTypes: ['message.status', 'message.bogus'],
      },
      'api',
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error.fields.map((f) => f.field)).toContain('eventTypes');
    const publicHttp = await api<{ error: { code: string; fields: { field: string; reason: string }[] } }>(
      'POST',
      '/v1/subscribers',
      {
        url: 'http://hooks.example.com/x',
        eventTypes: ['message.status'],
      },
      'api',
    );
    expect(publicHttp.status).toBe(400);
    expect(publicHttp.body.error).toMatchObject({
      code: 'SUBSCRIBER_URL_REFUSED',
      fields: [{ field: 'url', reason: 'must be https for a public subscriber' }],
    });

    const { server, id } = await subscriberFor('api');
    const oldSecret = server.secret as string;
    expect(oldSecret).toMatch(/^whsec_/);
    const read = await state(id);
    expect(read).toMatchObject({ id, state: 'ALIVE', failuresInWindow: 0 });
    expect(read).not.toHaveProperty('secret');
    // The tenant's list (the operator acting for it), and not another tenant's.
    expect(JSON.stringify((await api('GET', '/v1/subscribers', undefined, 'api')).body)).toContain(id);
    expect(JSON.stringify((await api('GET', '/v1/subscribers', undefined, 'flaky')).body)).not.toContain(id);

    const patched = await api<SubscriberBody>('PATCH', `/v1/subscribers/${id}`, { campaignId: 'cmp-api' });
    expect(patched.body.campaignId).toBe('cmp-api');

    const rotated = await api<SubscriberBody>('POST', `/v1/subscribers/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);

    await publishStatuses('api', 'cmp-other', ['api-filtered']);
    await publishStatuses('api', 'cmp-api', ['api-1']);
    await waitUntil('the rotated delivery', () => server.accepted.includes('api-1'));
    const received = server.received.find((r) => r.webhookId === 'api-1');
    // Verified by the reference library with the old secret (server.secret) during the grace period ...
    expect(received?.validSignature).toBe(true);
    // ... and with the new one.
    server.secret = newSecret;
    await publishStatuses('api', 'cmp-api', ['api-2']);
    await waitUntil('the second delivery', () => server.accepted.includes('api-2'));
    expect(server.received.find((r) => r.webhookId === 'api-2')?.validSignature).toBe(true);
    expect(server.received.map((r) => r.webhookId)).not.toContain('api-filtered');

    expect((await api('DELETE', `/v1/subscribers/${id}`)).status).toBe(204);
    expect((await api('GET', `/v1/subscribers/${id}`)).status).toBe(404);
  });

  it('delivers every event exactly once (by webhook-id) to a subscriber that was down for a while, with valid signatures', async () => {
    const flaky = await subscriberFor('flaky');
    const healthy = await subscriberFor('flaky');
    const ids = eventIds('flaky', 4);
    flaky.server.mode = { kind: 'status', status: 503 };
    await publishStatuses('flaky', 'cmp-flaky', ids);
    await waitUntil('the first failed attempts', () => flaky.server.received.length >= ids.length);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    flaky.server.mode = { kind: 'ok' };
    await waitUntil(
      'every event delivered',
      async () => (await deliveryStates(flaky.id))['DELIVERED'] === ids.length,
      {
        timeoutMs: 60_000,
      },
    );
    expect([...flaky.server.accepted].sort()).toEqual(ids);
    expect(flaky.server.received.length).toBeGreaterThan(ids.length); // there were retries
    expect(flaky.server.invalidSignatures()).toBe(0);
    await waitUntil(
      'the healthy subscriber got all',
      async () => (await deliveryStates(healthy.id))['DELIVERED'] === ids.length,
    );
    expect(healthy.server.received.map((r) => r.webhookId).sort()).toEqual(ids);
    expect(healthy.server.invalidSignatures()).toBe(0);
    const view = await state(flaky.id);
    expect(view.state).toBe('ALIVE');
    expect(view.lastSuccessAt).not.toBeNull();
    expect(view.lastError).toMatch(/HTTP 503/);
    const listed = await api<{ items: { attempts: number; state: string }[] }>(
      'GET',
      `/v1/subscribers/${flaky.id}/deliveries`,
    );
    expect(listed.body.items).toHaveLength(ids.length);
    expect(listed.body.items.every((d) => d.state === 'DELIVERED' && d.attempts >= 2)).toBe(true);
  });

  it('batches events for a subscriber that asks for it: every event once, one failure per failed request, signed bodies', async () => {
    type ErrorBody = { error: { code: string; fields: { field: string; reason: string }[] } };
    for (const maxEventsPerRequest of [0, 501, 2.5]) {
      const refused = await api<ErrorBody>(
        'POST',
        '/v1/subscribers',
        { url: 'http://127.0.0.1:9/x', eventTypes: ['message.status'], internal: true, maxEventsPerRequest },
        'batch',
      );
      expect(refused.status).toBe(400);
      expect(refused.body.error.fields.map((f) => f.field)).toEqual(['maxEventsPerRequest']);
    }
    const batch = await subscriberFor('batch', { maxEventsPerRequest: 100 });
    const single = await subscriberFor('batch');
    expect((await state(batch.id)) as SubscriberBody & { maxEventsPerRequest: number }).toMatchObject({
      maxEventsPerRequest: 100,
    });
    const patched = await api<ErrorBody>('PATCH', `/v1/subscribers/${batch.id}`, {
      maxEventsPerRequest: 501,
    });
    expect(patched.status).toBe(400);
    expect(patched.body.error.fields.map((f) => f.field)).toEqual(['maxEventsPerRequest']);

    const ids = eventIds('batch', 200);
    batch.server.mode = { kind: 'status', status: 503 };
    await publishStatuses('batch', 'cmp-batch', ids);
    await waitUntil('the first failed batches', () => batch.server.received.length >= 2);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // Every request received so far was answered 503 (the mode is read as each request ends).
    const failedRequests = batch.server.received.slice();
    batch.server.mode = { kind: 'ok' };
    await waitUntil(
      'every event delivered to the batch subscriber',
      async () => (await deliveryStates(batch.id))['DELIVERED'] === ids.length,
      { timeoutMs: 60_000 },
    );

    expect([...batch.server.accepted].sort()).toEqual(ids);
    expect(batch.server.invalidSignatures()).toBe(0);
    const bodies = batch.server.received.map(
      (r) =>
        JSON.parse(r.body) as {
          type: string;
          data: { id: string; type: string; data: { eventId: string } }[];
        },
    );
    for (const [i, body] of bodies.entries()) {
      expect(batch.server.received[i]?.webhookId).toMatch(/^batch_[0-9A-Z]{26}$/);
      expect(body.type).toBe('webhook.batch');
      expect(body.data.length).toBeGreaterThan(0);
      expect(body.data.length).toBeLessThanOrEqual(100);
      for (const item of body.data) {
        expect(item.type).toBe('message.status');
        expect(item.data.eventId).toBe(item.id);
      }
    }
    const failedDeliveries = failedRequests.reduce(
      (sum, r) => sum + (JSON.parse(r.body) as { data: unknown[] }).data.length,
      0,
    );
    // One failed request is one failure in the window, however many events it held: counted per
    // delivery, these would be over the threshold of 20 and tombstone the subscriber.
    expect(failedDeliveries).toBeGreaterThan(20);
    const view = await state(batch.id);
    expect(view.state).toBe('ALIVE');
    expect(view.failuresInWindow).toBe(failedRequests.length);
    expect(batch.server.received.length).toBeLessThan(ids.length / 2);
    // A failed batch is retried under its webhook-id: one id is always the same set of events, one set
    // always the same id, and some ids came more than once (the retries), so a receiver can dedupe them.
    const setOfId = new Map<string, string>();
    const idOfSet = new Map<string, string>();
    for (const [i, body] of bodies.entries()) {
      const webhookId = batch.server.received[i]?.webhookId ?? '';
      const events = body.data
        .map((item) => item.id)
        .sort()
        .join(',');
      expect(setOfId.get(webhookId) ?? events).toBe(events);
      expect(idOfSet.get(events) ?? webhookId).toBe(webhookId);
      setOfId.set(webhookId, events);
      idOfSet.set(events, webhookId);
    }
    expect(setOfId.size).toBeLessThan(bodies.length);
    const retriedWhole = failedRequests.filter(
      (failed) => batch.server.received.filter((r) => r.webhookId === failed.webhookId).length > 1,
    );
    expect(retriedWhole.length).toBeGreaterThan(0);

    // A stored body that is not a JSON object (the topics refuse them; here written straight into the
    // table, its lease run out) cannot go into a batch: it fails without a request, is not counted
    // against the subscriber, and the process keeps delivering.
    await ds.query(
      `INSERT INTO deliveries (subscriber_id, event_id, event_type, payload, state, next_attempt_at)
       VALUES (?, 'batch-poison', 'message.status', '[1]', 'PENDING', UTC_TIMESTAMP(3) - INTERVAL 1 SECOND)`,
      [batch.id],
    );
    await waitUntil(
      'the poison row failed',
      async () => {
        const rows: { state: string; last_error: string | null }[] = await ds.query(
          "SELECT state, last_error FROM deliveries WHERE event_id = 'batch-poison'",
        );
        return rows[0]?.state === 'RETRYING' && /WEBHOOK_PAYLOAD_NOT_OBJECT/.test(rows[0].last_error ?? '');
      },
      { timeoutMs: 30_000 },
    );
    expect((await state(batch.id)).failuresInWindow).toBe(failedRequests.length);
    expect(batch.server.accepted).not.toContain('batch-poison');
    await publishStatuses('batch', 'cmp-batch', ['batch-after-poison']);
    await waitUntil('an event after the poison row', () =>
      batch.server.accepted.includes('batch-after-poison'),
    );

    // Its first attempts were answered: a backlog chunk's answered deliveries leave no row.
    await waitUntil(
      'the single-event subscriber got all',
      async () => new Set(single.server.accepted).size === ids.length + 1 && (await owed(single.id)) === 0,
    );
    expect(single.server.received.map((r) => r.webhookId).sort()).toEqual(
      [...ids, 'batch-after-poison'].sort(),
    );
    expect(
      single.server.received.every((r) => (JSON.parse(r.body) as { type: string }).type === 'message.status'),
    ).toBe(true);
  });

  it('tombstones a dead subscriber past the threshold, stops attempts, and after resurrect replays everything it missed in order', async () => {
    const dead = await subscriberFor('dead');
    dead.server.mode = { kind: 'status', status: 500 };
    const first = eventIds('dead-a', 25);
    await publishStatuses('dead', 'cmp-dead', first);
    await waitUntil('the tombstone', async () => (await state(dead.id)).state === 'DEAD', {
      timeoutMs: 60_000,
    });
    await waitUntil('the alert', () =>
      alerts.find((a) => a.subscriberId === dead.id && a.kind === 'tombstoned'),
    );
    const view = await state(dead.id);
    expect(view.failuresInWindow).toBeGreaterThan(20);
    // Nothing in flight any more, then more events: none of them is attempted.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const attemptsAtTombstone = dead.server.received.length;
    const second = eventIds('dead-b', 10);
    await publishStatuses('dead', 'cmp-dead', second);
    await waitUntil(
      'the later events kept',
      async () => (await deliveryStates(dead.id))['MISSED'] === first.length + second.length,
      {
        timeoutMs: 30_000,
      },
    );
    await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[2] ?? 1_000));
    expect(dead.server.received.length).toBe(attemptsAtTombstone);
    expect(dead.server.accepted).toHaveLength(0);

    // It now takes batches of up to 10: the replay sends its backlog in order, ten events a request
    // (one event a request is replayed in the isolation e2e).
    expect((await api('PATCH', `/v1/subscribers/${dead.id}`, { maxEventsPerRequest: 10 })).status).toBe(200);
    dead.server.mode = { kind: 'ok' };
    const requestsBeforeReplay = dead.server.received.length;
    const resurrected = await api<SubscriberBody>('POST', `/v1/subscribers/${dead.id}/resurrect`);
    expect(resurrected.status).toBe(202);
    expect(resurrected.body.state).toBe('REPLAYING');
    await waitUntil('alive again', async () => (await state(dead.id)).state === 'ALIVE', {
      timeoutMs: 60_000,
    });
    expect(dead.server.accepted).toEqual([...first, ...second]);
    expect(dead.server.invalidSignatures()).toBe(0);
    const replayed = dead.server.received.slice(requestsBeforeReplay);
    expect(replayed.map((r) => (JSON.parse(r.body) as { data: unknown[] }).data.length)).toEqual([
      10, 10, 10, 5,
    ]);
    expect(replayed.every((r) => r.webhookId.startsWith('batch_'))).toBe(true);
    expect(alerts.filter((a) => a.subscriberId === dead.id).map((a) => a.kind)).toEqual([
      'tombstoned',
      'resurrected',
    ]);
    // New events flow normally afterwards.
    await publishStatuses('dead', 'cmp-dead', ['dead-c-0000']);
    await waitUntil('a new event', () => dead.server.accepted.includes('dead-c-0000'));
    expect(await deliveryStates(dead.id)).toEqual({ DELIVERED: first.length + second.length + 1 });
  });

  it('dead-letters a delivery after the last retry tier and replays it from the API', async () => {
    const failing = await subscriberFor('dlq');
    failing.server.mode = { kind: 'status', status: 500 };
    const since = new Date(Date.now() - 1_000).toISOString();
    await publishStatuses('dlq', 'cmp-dlq', ['dlq-0']);
    await waitUntil(
      'the dead letter',
      async () => (await deliveryStates(failing.id))['DEAD_LETTERED'] === 1,
      {
        timeoutMs: 60_000,
      },
    );
    expect(failing.server.received.filter((r) => r.webhookId === 'dlq-0')).toHaveLength(
      RETRY_DELAYS_MS.length + 1,
    );
    await waitUntil('the dead letter on the topic', () =>
      deadLetters.find((d) => d.errorCode === 'RETRIES_EXHAUSTED' && (d.value ?? '').includes('dlq-0')),
    );
    expect((await state(failing.id)).state).toBe('ALIVE');

    failing.server.mode = { kind: 'ok' };
    const replay = await api<{ replayed: number }>('POST', `/v1/subscribers/${failing.id}/replay`, { since });
    expect(replay).toEqual({ status: 202, body: { replayed: 1 } });
    await waitUntil('the replayed delivery', () => failing.server.accepted.includes('dlq-0'));
    await waitUntil('settled', async () => (await deliveryStates(failing.id))['DELIVERED'] === 1);

    const [row] = (await api<{ items: { id: string }[] }>('GET', `/v1/subscribers/${failing.id}/deliveries`))
      .body.items;
    const again = await api<{ state: string }>(
      'POST',
      `/v1/subscribers/${failing.id}/deliveries/${row?.id}/replay`,
    );
    expect(again.status).toBe(202);
    await waitUntil(
      'the single replay',
      () =>
        failing.server.received.filter((r) => r.webhookId === 'dlq-0').length === RETRY_DELAYS_MS.length + 3,
    );
    expect(failing.server.invalidSignatures()).toBe(0);
  });

  it('disables a subscriber that answers 410', async () => {
    const gone = await subscriberFor('gone');
    gone.server.mode = { kind: 'status', status: 410 };
    await publishStatuses('gone', 'cmp-gone', ['gone-0', 'gone-1']);
    await waitUntil('disabled', async () => (await state(gone.id)).state === 'DISABLED');
    await waitUntil('the alert', () =>
      alerts.find((a) => a.subscriberId === gone.id && a.kind === 'disabled'),
    );
    const attempts = gone.server.received.length;
    await publishStatuses('gone', 'cmp-gone', ['gone-2']);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(gone.server.received.length).toBe(attempts);
  });

  it('refuses public subscribers at non-public addresses on create and update, and still at connect time', async () => {
    type ErrorBody = { error: { code: string; fields: { field: string; reason: string }[] } };
    const target = await LoopbackSubscriber.start();
    fixture.servers.push(target);
    const subscribersBefore = await ds.query('SELECT id, url, is_internal FROM subscribers ORDER BY id');
    for (const [url, reason] of [
      ['https://169.254.169.254/latest/meta-data/', '169.254.169.254 is not a public address'],
      [`https://127.0.0.1:${target.port}/hook`, '127.0.0.1 is not a public address'],
      [`https://localhost:${target.port}/hook`, 'localhost resolves to'],
      [`https://[::1]:${target.port}/hook`, '::1 is not a public address'],
      ['https://10.0.0.1/hook', '10.0.0.1 is not a public address'],
      ['https://192.168.1.1/hook', '192.168.1.1 is not a public address'],
      ['https://[fd00::1]/hook', 'fd00::1 is not a public address'],
    ] as const) {
      const refused = await api<ErrorBody>(
        'POST',
        '/v1/subscribers',
        { url, eventTypes: ['message.status'] },
        'ssrf',
      );
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('SUBSCRIBER_URL_REFUSED');
      expect(refused.body.error.fields).toEqual([{ field: 'url', reason: expect.stringContaining(reason) }]);
    }
    // A public address is accepted (no event of its tenant is published: it is never called) ...
    const created = await api<SubscriberBody>(
      'POST',
      '/v1/subscribers',
      { url: 'https://93.184.215.14/hook', eventTypes: ['message.status'] },
      'ssrf',
    );
    expect(created.status).toBe(201);
    // ... and cannot be moved to a non-public one, nor an internal loopback one made public.
    const moved = await api<ErrorBody>('PATCH', `/v1/subscribers/${created.body.id}`, {
      url: 'https://169.254.169.254/hook',
    });
    expect(moved.status).toBe(400);
    expect(moved.body.error.fields).toEqual([
      { field: 'url', reason: '169.254.169.254 is not a public address' },
    ]);
    const internal = await subscriberFor('ssrf-internal');
    const madePublic = await api<ErrorBody>('PATCH', `/v1/subscribers/${internal.id}`, { internal: false });
    expect(madePublic.status).toBe(400);
    expect(madePublic.body.error.fields.map((f) => f.field)).toEqual(['url']);
    const subscribersAfter: { id: string; url: string; is_internal: number }[] = await ds.query(
      'SELECT id, url, is_internal FROM subscribers ORDER BY id',
    );
    expect(subscribersAfter.filter((r) => r.id !== created.body.id && r.id !== internal.id)).toEqual(
      subscribersBefore,
    );
    expect(subscribersAfter.find((r) => r.id === created.body.id)?.url).toBe('https://93.184.215.14/hook');
    expect(Number(subscribersAfter.find((r) => r.id === internal.id)?.is_internal)).toBe(1);

    // A name can resolve elsewhere later: the agent still refuses a non-public address at connect time
    // (the URL written here as if its name now resolved to loopback).
    await ds.query('UPDATE subscribers SET url = ? WHERE id = ?', [
      `https://127.0.0.1:${target.port}/hook`,
      created.body.id,
    ]);
    await new Promise((resolve) => setTimeout(resolve, 600)); // the directory's refresh (200 ms)
    await publishStatuses('ssrf', 'cmp-ssrf', ['ssrf-0']);
    await waitUntil('the refused attempt', async () =>
      (await state(created.body.id)).lastError?.startsWith('ADDRESS_NOT_PUBLIC'),
    );
    expect(target.connections).toBe(0);
    expect((await api('DELETE', `/v1/subscribers/${created.body.id}`)).status).toBe(204);
  });

  it('takes a subscriber whose secret does not open out of delivery, and only it: no request, logged, counted, back after a rotation', async () => {
    const healthy = await subscriberFor('sealed');
    const server = await LoopbackSubscriber.start();
    fixture.servers.push(server);
    // Sealed under a key that is not in the dispatcher's SECRETS_KEYS (as if it was dropped too early).
    const retired = new SecretBox([{ id: 'retired', key: randomBytes(32) }]);
    const lostSecret = 'whsec_' + randomBytes(24).toString('base64');
    const insertUnreadable = async (id: string, tenantId: string): Promise<void> => {
      await ds.query(
        `INSERT INTO subscribers (id, tenant_id, url, event_types, campaign_filter, is_internal,
           max_events_per_request, secret, state, created_at, updated_at)
         VALUES (?, ?, ?, '["message.status"]', NULL, 1, 1, ?, 'ALIVE', UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))`,
        [id, tenantId, server.url(), retired.seal(lostSecret)],
      );
    };
    const unreadableId = `sub_unreadable_${randomBytes(4).toString('hex')}`;
    await insertUnreadable(unreadableId, 'sealed');
    const unreadableGauge = (): Promise<number> =>
      sumMetric([dispatcher.managementUrl], 'ums_webhook_subscribers_secret_unreadable');
    await waitUntil('the unreadable secret counted', async () => (await unreadableGauge()) === 1);

    const ids = eventIds('sealed', 3);
    await publishStatuses('sealed', 'cmp-sealed', ids);
    await waitUntil(
      'the healthy neighbour got every event',
      () => healthy.server.accepted.length === ids.length,
    );
    await waitUntil('its deliveries wait on the retry tiers', async () => {
      const rows: { last_error: string | null }[] = await ds.query(
        "SELECT last_error FROM deliveries WHERE subscriber_id = ? AND state = 'RETRYING'",
        [unreadableId],
      );
      return (
        rows.length === ids.length &&
        rows.every((r) => r.last_error?.includes('SUBSCRIBER_SECRET_UNREADABLE') === true)
      );
    });
    expect(server.received).toHaveLength(0);
    // Not the subscriber's fault: nothing counted against it.
    expect(await state(unreadableId)).toMatchObject({ state: 'ALIVE', failuresInWindow: 0 });
    const log = readFileSync(dispatcher.logFile, 'utf8');
    expect(log).toContain(unreadableId);
    expect(log).toContain('SECRET_KEY_UNKNOWN');
    expect(log).not.toContain(lostSecret);

    // A rotation gives it a secret that opens: what waited is delivered, signed with the new secret.
    const since = new Date(Date.now() - 60_000).toISOString();
    const rotated = await api<SubscriberBody>('POST', `/v1/subscribers/${unreadableId}/rotate-secret`);
    expect(rotated.status).toBe(200);
    server.secret = rotated.body.secret;
    await waitUntil('the gauge back to 0', async () => (await unreadableGauge()) === 0);
    await waitUntil(
      'settled',
      async () => {
        const states = await deliveryStates(unreadableId);
        return (states['DELIVERED'] ?? 0) + (states['DEAD_LETTERED'] ?? 0) === ids.length;
      },
      { timeoutMs: 60_000 },
    );
    // Retries out before the rotation (on a slow host) are dead letters, replayable from the API.
    if ((await deliveryStates(unreadableId))['DEAD_LETTERED'] !== undefined) {
      expect((await api('POST', `/v1/subscribers/${unreadableId}/replay`, { since })).status).toBe(202);
    }
    await waitUntil(
      'every event delivered',
      async () => (await deliveryStates(unreadableId))['DELIVERED'] === ids.length,
    );
    expect([...server.accepted].sort()).toEqual(ids);
    expect(server.invalidSignatures()).toBe(0);

    // A process starting with an unreadable secret in the table starts, and delivers to the others.
    const secondId = `sub_unreadable_${randomBytes(4).toString('hex')}`;
    await insertUnreadable(secondId, 'sealed');
    await dispatcher.process.stop();
    await dispatcher.restart();
    expect(await unreadableGauge()).toBe(1);
    await publishStatuses('sealed', 'cmp-sealed', ['sealed-after-restart']);
    await waitUntil('delivered after the restart', () =>
      healthy.server.accepted.includes('sealed-after-restart'),
    );
    await waitUntil('and to the rotated one', () => server.accepted.includes('sealed-after-restart'));
    expect(server.received.filter((r) => r.webhookId === 'sealed-after-restart')).toHaveLength(1);
    expect((await api('DELETE', `/v1/subscribers/${secondId}`)).status).toBe(204);
  });

  it('delivers inbound messages to subscribers of message.inbound only', async () => {
    const inbound = await subscriberFor('inbound', { eventTypes: ['message.inbound'] });
    const status = await subscriberFor('inbound');
    const value: InboundMessageV1 = {
      eventId: 'inbound-0',
      tenantId: 'inbound',
      credentialId: 'cred-1',
      channel: Channel.Sms,
      from: '+4915100000002',
      to: '+4915100000003',
      text: 'STOP',
      providerMessageId: 'pm-1',
      optOut: true,
      occurredAt: new Date().toISOString(),
    };
    await producer.send({
      topic: names.topic(Topics.inboundMessages.name),
      acks: -1,
      messages: [{ key: Topics.inboundMessages.keyOf(value), value: JSON.stringify(value) }],
    });
    await publishStatuses('inbound', 'cmp-inbound', ['inbound-status-0']);
    await waitUntil('the inbound delivery', () => inbound.server.accepted.includes('inbound-0'));
    await waitUntil('the status delivery', () => status.server.accepted.includes('inbound-status-0'));
    const body = JSON.parse(inbound.server.received[0]?.body ?? '{}') as {
      type: string;
      data: InboundMessageV1;
    };
    expect(body).toMatchObject({ type: 'message.inbound', data: { text: 'STOP', optOut: true } });
    expect(inbound.server.received.map((r) => r.webhookId)).toEqual(['inbound-0']);
    expect(status.server.received.map((r) => r.webhookId)).toEqual(['inbound-status-0']);
    expect(inbound.server.invalidSignatures() + status.server.invalidSignatures()).toBe(0);
  });

  it('delivers run lifecycle events only to subscribers of their run.<event> types, signed', async () => {
    const completedOnly = await subscriberFor('lifecycle', { eventTypes: ['run.completed'] });
    const startAndEnd = await subscriberFor('lifecycle', { eventTypes: ['run.started', 'run.completed'] });
    const statusOnly = await subscriberFor('lifecycle');
    const lifecycle = (
      runId: string,
      event: RunLifecycleEvent,
      from: RunState,
      to: RunState,
    ): RunLifecycleV1 => ({
      eventId: `run-${runId}-${event}`,
      tenantId: 'lifecycle',
      campaignId: 'cmp-lifecycle',
      runId,
      event,
      state: to,
      previousState: from,
      counters: {
        total: 2,
        pending: 0,
        sending: 0,
        sent: 2,
        delivered: 0,
        read: 0,
        failed: 0,
        unknown: 0,
        skipped: 0,
      },
      occurredAt: new Date().toISOString(),
    });
    const values = ['71', '72'].flatMap((runId) => [
      lifecycle(runId, RunLifecycleEvent.Scheduled, RunState.Pending, RunState.Scheduled),
      lifecycle(runId, RunLifecycleEvent.Started, RunState.Scheduled, RunState.Running),
      lifecycle(runId, RunLifecycleEvent.Completed, RunState.Running, RunState.Completed),
    ]);
    await producer.send({
      topic: names.topic(Topics.runLifecycle.name),
      acks: -1,
      messages: values.map((v) => ({ key: Topics.runLifecycle.keyOf(v), value: JSON.stringify(v) })),
    });
    await publishStatuses('lifecycle', 'cmp-lifecycle', ['lifecycle-status-0']);
    await waitUntil('the completed runs', () => completedOnly.server.accepted.length >= 2);
    await waitUntil('started and completed', () => startAndEnd.server.accepted.length >= 4);
    await waitUntil('the status delivery', () => statusOnly.server.accepted.includes('lifecycle-status-0'));
    // Each run completes once: exactly one run.completed per run, nothing else.
    expect(completedOnly.server.received.map((r) => r.webhookId)).toEqual([
      'run-71-completed',
      'run-72-completed',
    ]);
    expect(startAndEnd.server.received.map((r) => r.webhookId)).toEqual([
      'run-71-started',
      'run-71-completed',
      'run-72-started',
      'run-72-completed',
    ]);
    expect(statusOnly.server.received.map((r) => r.webhookId)).toEqual(['lifecycle-status-0']);
    const body = JSON.parse(completedOnly.server.received[0]?.body ?? '{}') as {
      type: string;
      data: RunLifecycleV1;
    };
    expect(body).toMatchObject({
      type: 'run.completed',
      data: { runId: '71', event: 'completed', state: 'COMPLETED', counters: { sent: 2 } },
    });
    const invalid = [completedOnly, startAndEnd, statusOnly].map((s) => s.server.invalidSignatures());
    expect(invalid).toEqual([0, 0, 0]);
    const refused = await api<{ error: { fields: { field: string }[] } }>(
      'POST',
      '/v1/subscribers',
      { url: completedOnly.server.url(), eventTypes: ['run.finished'], internal: true },
      'lifecycle',
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error.fields.map((f) => f.field)).toContain('eventTypes');
  });

  it('writes a backlog chunk once its attempts are in: answered deliveries leave no row, a hanging neighbour owed and kept', async () => {
    const healthy = await subscriberFor('backlog');
    const hanging = await subscriberFor('backlog');
    hanging.server.mode = { kind: 'hang' };
    // One produce request of 150 events is one record batch: the consumer gets it as one chunk.
    const first = eventIds('backlog-a', 150);
    await publishStatuses('backlog', 'cmp-backlog', first);
    await waitUntil('the first burst delivered', () => healthy.server.accepted.length === first.length, {
      timeoutMs: 30_000,
    });
    // The hanging neighbour's rows exist, none of them settled: PENDING until each attempt times out,
    // then RETRYING, or MISSED once its timeouts tombstone it (which can come within a second or two).
    await waitUntil('the neighbour rows', async () => {
      const states = await deliveryStates(hanging.id);
      const owedOrKept = (states['PENDING'] ?? 0) + (states['RETRYING'] ?? 0) + (states['MISSED'] ?? 0);
      return owedOrKept === first.length && states['DELIVERED'] === undefined;
    });
    // Its attempts are slow now (not waited for): the next burst goes the same way.
    const second = eventIds('backlog-b', 150);
    await publishStatuses('backlog', 'cmp-backlog', second);
    await waitUntil(
      'the second burst delivered',
      () => healthy.server.accepted.length === first.length + second.length,
      { timeoutMs: 30_000 },
    );
    expect([...healthy.server.accepted].sort()).toEqual([...first, ...second]);
    expect(healthy.server.received).toHaveLength(first.length + second.length);
    expect(healthy.server.invalidSignatures()).toBe(0);
    // Answered at their first attempt, before their chunk was written: no row, and none owed.
    expect(await deliveryStates(healthy.id)).toEqual({});
    // The neighbour times out past the threshold: tombstoned, every one of its rows kept for a resurrect.
    await waitUntil(
      'the neighbour tombstoned, its deliveries kept',
      async () => (await deliveryStates(hanging.id))['MISSED'] === first.length + second.length,
      { timeoutMs: 60_000 },
    );
    expect((await state(hanging.id)).state).toBe('DEAD');
  });

  it('loses nothing when the dispatcher is SIGKILLed with deliveries queued and in flight', async () => {
    const slow = await subscriberFor('crash');
    // 64 in flight at most (the subscriber's lane), 100 ms each: the rest waits in memory when the kill lands.
    slow.server.mode = { kind: 'ok', delayMs: 100 };
    const ids = eventIds('crash', 300);
    await publishStatuses('crash', 'cmp-crash', ids);
    await waitUntil('some deliveries', () => slow.server.accepted.length >= 20);
    await dispatcher.process.kill();
    const beforeRestart = slow.server.accepted.length;
    expect(beforeRestart).toBeLessThan(ids.length);
    slow.server.mode = { kind: 'ok' };
    await dispatcher.restart();
    // Answered first attempts of a backlog chunk leave no row; the others are settled DELIVERED.
    await waitUntil(
      'every event delivered',
      async () => new Set(slow.server.accepted).size === ids.length && (await owed(slow.id)) === 0,
      { timeoutMs: 90_000 },
    );
    expect([...new Set(slow.server.accepted)].sort()).toEqual(ids);
    expect(slow.server.invalidSignatures()).toBe(0);
    // Re-attempts are bounded by what was in flight or unwritten at the kill, never the whole backlog.
    const attempts = slow.server.received.length;
    expect(attempts - ids.length).toBeLessThanOrEqual(64 + 500);
  });
});
