import { randomBytes } from 'node:crypto';
import {
  AllTopics,
  AuthErrorCode,
  type DeadLetterV1,
  KafkaHeaders,
  type MessageBatchV1,
  Scope,
  type SendRequestV1,
  TENANT_HEADER,
  Topics,
} from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  bearer,
  createTenantKey,
  createTestDatabase,
  jsonCall,
  type JsonAnswer,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  sumMetric,
  TEST_OPERATOR_KEY,
  testKafka,
  waitUntil,
} from '@ums/testing';
import type { Consumer, Producer } from 'kafkajs';
import type { DataSource } from 'typeorm';

jest.setTimeout(180_000);

interface Letter {
  id: string;
  tenantId: string | null;
  sourceTopic: string;
  replayTo: string | null;
  errorCode: string;
  value: string | null;
  headers: Record<string, string>;
  replays: number;
  replayedAt: string | null;
}

describe('dead letters API (scheduler process, real Kafka and MariaDB)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let names: KafkaNames;
  let scheduler: ServiceProcess;
  let producer: Producer;
  let consumer: Consumer;
  const priority: MessageBatchV1[] = [];
  const onDeadLetterTopic: DeadLetterV1[] = [];
  /** Keys of tenant-a (whose send requests fail in the first test) and of tenant-b. */
  let keyA: string;
  let keyB: string;

  beforeAll(async () => {
    db = await createTestDatabase('dead_letters');
    ds = createDataSource(db.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    names = new KafkaNames(namespace);
    await ensureTopics(testKafka(), AllTopics, 1, names);
    scheduler = await startServiceProcess({
      app: 'campaign-scheduler',
      // Maintenance every second: the open gauge follows within the test's waits.
      env: { ...serviceEnv(db.settings.database, namespace), DEAD_LETTER_MAINTENANCE_TICK_MS: '1000' },
    });
    consumer = testKafka().consumer({ groupId: `${namespace}.observer` });
    await consumer.connect();
    await consumer.subscribe({
      topics: [names.topic(Topics.prioritySends.name), names.topic(Topics.deadLetters.name)],
      fromBeginning: true,
    });
    await consumer.run({
      eachMessage: async ({ topic, message }) => {
        const value: unknown = JSON.parse(String(message.value));
        if (topic === names.topic(Topics.prioritySends.name)) priority.push(value as MessageBatchV1);
        else onDeadLetterTopic.push(value as DeadLetterV1);
        await Promise.resolve();
      },
    });
    producer = testKafka().producer();
    await producer.connect();
    keyA = await createTenantKey(scheduler.url, 'tenant-a');
    keyB = await createTenantKey(scheduler.url, 'tenant-b');
  });

  afterAll(async () => {
    await scheduler?.process.stop();
    await Promise.all([producer?.disconnect(), consumer?.disconnect()]);
    await ds?.destroy();
    await db?.drop();
  });

  /** A call with `key`: tenant-a's unless given. */
  function call(method: string, path: string, body?: unknown, key: string = keyA): Promise<JsonAnswer> {
    return jsonCall(scheduler.url, method, path, body, key);
  }

  async function letters(query = '', key: string = keyA): Promise<Letter[]> {
    const answer = await call('GET', `/v1/dead-letters${query}`, undefined, key);
    expect(answer.status).toBe(200);
    return answer.body['items'] as Letter[];
  }

  const request: SendRequestV1 = {
    requestId: 'r-later',
    kind: 'single' as SendRequestV1['kind'],
    tenantId: 'tenant-a',
    channel: 'sms' as SendRequestV1['channel'],
    credentialId: 'cred_later',
    content: { text: 'Your code is {{code}}' },
    recipient: { address: '+4915123456789', variables: { code: '4711' } },
    requestedAt: new Date().toISOString(),
  };

  it('stores refused messages, lists and shows them, and replays them to their topic once the cause is fixed', async () => {
    // A request for a credential that does not exist yet, and bytes that are no request at all.
    await producer.send({
      topic: names.topic(Topics.sendRequests.name),
      acks: -1,
      messages: [
        { key: 'tenant-a', value: JSON.stringify(request), headers: { traceparent: '00-trace' } },
        { key: 'tenant-a', value: 'not json at all' },
      ],
    });
    const stored = await waitUntil(
      'both dead letters stored',
      async () => {
        const items = await letters();
        return items.length === 2 ? items : undefined;
      },
      { timeoutMs: 60_000 },
    );
    // Both name where they came from and where a replay goes. The scheduler handles a partition's
    // requests several at once, so the two may have failed in either order: told apart by their code.
    expect(stored.map((l) => l.errorCode).sort()).toEqual(['CREDENTIAL_NOT_FOUND', 'INVALID_JSON']);
    for (const letter of stored) {
      expect(letter).toMatchObject({
        // From the request's tenantId, and from the key of the bytes that are no request.
        tenantId: 'tenant-a',
        sourceTopic: names.topic(Topics.sendRequests.name),
        replayTo: Topics.sendRequests.name,
        replays: 0,
        replayedAt: null,
      });
    }
    const refused = stored.find((l) => l.errorCode === 'CREDENTIAL_NOT_FOUND') as Letter;
    const garbage = stored.find((l) => l.errorCode === 'INVALID_JSON') as Letter;
    const [newer, older] = stored as [Letter, Letter];
    expect(BigInt(newer.id)).toBeGreaterThan(BigInt(older.id));
    expect(JSON.parse(refused.value as string)).toEqual(request);
    expect(refused.headers).toEqual({ traceparent: '00-trace' });
    expect((await call('GET', `/v1/dead-letters/${refused.id}`)).body).toMatchObject({
      id: refused.id,
      errorCode: 'CREDENTIAL_NOT_FOUND',
      consumerGroup: names.group('campaign-scheduler.send-requests'),
    });
    expect((await letters('?errorCode=INVALID_JSON')).map((l) => l.id)).toEqual([garbage.id]);
    // Counted as consumed, and open (waiting for a decision) by source topic and error code.
    const sourceTopic = names.topic(Topics.sendRequests.name);
    for (const code of ['CREDENTIAL_NOT_FOUND', 'INVALID_JSON']) {
      const labels = { source_topic: sourceTopic, error_code: code };
      expect(await sumMetric([scheduler.managementUrl], 'ums_dead_letters_consumed_total', labels)).toBe(1);
      await waitUntil(
        `${code} counted open`,
        async () => (await sumMetric([scheduler.managementUrl], 'ums_dead_letters_open', labels)) === 1,
        { timeoutMs: 15_000 },
      );
    }
    const firstPage = await call('GET', '/v1/dead-letters?limit=1');
    expect(firstPage.body['nextBefore']).toBe(newer.id);
    expect((await letters(`?limit=1&before=${newer.id}`)).map((l) => l.id)).toEqual([older.id]);

    // Bad input is refused by field; an unknown id is a 404.
    expect(await call('GET', '/v1/dead-letters?replayed=maybe')).toMatchObject({
      status: 400,
      body: { error: { fields: [expect.objectContaining({ field: 'replayed' })] } },
    });
    expect(await call('GET', '/v1/dead-letters/99999999')).toMatchObject({
      status: 404,
      body: { error: { code: 'DEAD_LETTER_NOT_FOUND' } },
    });
    expect(await call('POST', '/v1/dead-letters/replay', {})).toMatchObject({
      status: 400,
      body: { error: { code: 'REPLAY_SELECTION_INVALID' } },
    });
    expect(await call('POST', '/v1/dead-letters/replay', { ids: ['x'] })).toMatchObject({ status: 400 });

    // The cause is fixed: the credential now exists. The replay sends the request through.
    await ds.query(
      `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, rate_ceiling_per_sec, rate_floor_per_sec)
       VALUES ('cred_later', 'tenant-a', 'sms', 'simulator', 'sms', '{}', 100, 1)`,
    );
    expect(await call('POST', '/v1/dead-letters/replay', { ids: [refused.id] })).toMatchObject({
      status: 200,
      body: { replayed: [refused.id], refused: [] },
    });
    await waitUntil('the replayed request sent on the priority lane', () => priority.length === 1, {
      timeoutMs: 30_000,
    });
    expect(priority[0]).toMatchObject({ credentialId: 'cred_later', tenantId: 'tenant-a' });
    const [row] = (await ds.query(
      `SELECT state FROM messages WHERE tenant_id = 'tenant-a' AND idempotency_key = 'r-later'`,
    )) as { state: string }[];
    expect(row?.state).toBe('PENDING');
    expect((await call('GET', `/v1/dead-letters/${refused.id}`)).body).toMatchObject({
      replays: 1,
      replayedAt: expect.any(String),
    });

    // A replay by filter takes the entries never replayed: the garbage goes back, fails again, and its
    // new dead letter names the entry it was replayed from.
    expect(await call('POST', '/v1/dead-letters/replay', { sourceTopic: garbage.sourceTopic })).toMatchObject(
      {
        status: 200,
        body: { replayed: [garbage.id], refused: [] },
      },
    );
    const again = await waitUntil(
      'the replayed garbage dead-lettered again',
      async () => (await letters('?replayed=false')).find((l) => l.id !== garbage.id && l.id !== refused.id),
      { timeoutMs: 30_000 },
    );
    expect(again).toMatchObject({
      errorCode: 'INVALID_JSON',
      value: 'not json at all',
      headers: { [KafkaHeaders.deadLetterReplay]: garbage.id },
    });
    expect((await letters('?replayed=true')).map((l) => l.id).sort()).toEqual(
      [garbage.id, refused.id].sort(),
    );
    // Open now: only the new entry; the credential's entry is handled.
    await waitUntil(
      'the open gauge following the replays',
      async () =>
        (await sumMetric([scheduler.managementUrl], 'ums_dead_letters_open', {
          source_topic: sourceTopic,
          error_code: 'CREDENTIAL_NOT_FOUND',
        })) === 0 &&
        (await sumMetric([scheduler.managementUrl], 'ums_dead_letters_open', {
          source_topic: sourceTopic,
        })) === 1,
      { timeoutMs: 15_000 },
    );
    // Nothing else was sent: the request replayed once is one message.
    const [count] = (await ds.query(`SELECT COUNT(*) AS n FROM messages WHERE tenant_id = 'tenant-a'`)) as {
      n: string;
    }[];
    expect(Number(count?.n)).toBe(1);
  });

  /** The error of an answer, with `ids` written as <id>: a foreign id and a missing one must read alike. */
  function errorShape(answer: JsonAnswer, ...ids: string[]): unknown {
    const error = answer.body['error'] as { code: string; message: string; details?: unknown };
    const blank = (text: string): string => ids.reduce((out, id) => out.split(id).join('<id>'), text);
    return {
      status: answer.status,
      code: error.code,
      message: blank(error.message),
      details: error.details === undefined ? undefined : blank(JSON.stringify(error.details)),
    };
  }

  it('keeps each tenant to its own dead letters; operators see every one, those of no known tenant too', async () => {
    const ofA = await letters('?limit=500');
    expect(ofA.length).toBeGreaterThanOrEqual(3);
    // Tenant-b's refused request, and a provider event (a topic without a tenant) refused by a sender.
    await producer.send({
      topic: names.topic(Topics.sendRequests.name),
      acks: -1,
      messages: [{ key: 'tenant-b', value: 'b: not json' }],
    });
    const providerLetter: DeadLetterV1 = {
      sourceTopic: names.topic(Topics.providerEvents.name),
      sourcePartition: 0,
      sourceOffset: '7',
      consumerGroup: names.group('notification-sender.provider-events'),
      key: 'evt-1',
      value: JSON.stringify({ eventId: 'evt-1', tenantId: 'tenant-a' }),
      valueEncoding: 'utf8',
      headers: {},
      errorCode: 'SCHEMA_VIOLATION',
      reason: 'kind: must be one of status, inbound',
      attempts: 1,
      failedAt: new Date().toISOString(),
    };
    await producer.send({
      topic: names.topic(Topics.deadLetters.name),
      acks: -1,
      messages: [{ key: 'evt-1', value: JSON.stringify(providerLetter) }],
    });
    const all = await waitUntil(
      'both entries stored',
      async () => {
        const items = await letters('?limit=500', TEST_OPERATOR_KEY);
        return items.length === ofA.length + 2 ? items : undefined;
      },
      { timeoutMs: 60_000 },
    );
    const ofB = all.find((l) => l.value === 'b: not json') as Letter;
    const unknown = all.find((l) => l.errorCode === 'SCHEMA_VIOLATION') as Letter;
    expect([ofB.tenantId, unknown.tenantId]).toEqual(['tenant-b', null]);
    const idsOfA = ofA.map((l) => l.id);

    // Lists: each tenant its own; the operator with X-Ums-Tenant that tenant's.
    expect((await letters('?limit=500')).map((l) => l.id)).toEqual(idsOfA);
    expect((await letters('?limit=500', keyB)).map((l) => l.id)).toEqual([ofB.id]);
    const operatorForB = await fetch(`${scheduler.url}/v1/dead-letters`, {
      headers: { ...bearer(TEST_OPERATOR_KEY), [TENANT_HEADER]: 'tenant-b' },
    });
    expect(((await operatorForB.json()) as { items: Letter[] }).items.map((l) => l.id)).toEqual([ofB.id]);

    // By id: another tenant's entry, or one of no known tenant, answers as a missing one.
    const missing = '99999999';
    for (const id of [idsOfA[0] as string, unknown.id]) {
      const foreign = await call('GET', `/v1/dead-letters/${id}`, undefined, keyB);
      expect(errorShape(foreign, id)).toEqual(
        errorShape(await call('GET', `/v1/dead-letters/${missing}`, undefined, keyB), missing),
      );
      expect(foreign.status).toBe(404);
      const replay = await call('POST', '/v1/dead-letters/replay', { ids: [id] }, keyB);
      expect(errorShape(replay, id)).toEqual(
        errorShape(await call('POST', '/v1/dead-letters/replay', { ids: [missing] }, keyB), missing),
      );
      expect(replay.status).toBe(404);
    }
    expect(
      (await call('GET', `/v1/dead-letters/${unknown.id}`, undefined, TEST_OPERATOR_KEY)).body,
    ).toMatchObject({
      id: unknown.id,
      tenantId: null,
    });

    // A replay by filter from B takes B's entries only, replayed ones included when asked.
    const replayedBefore = (await letters('?limit=500')).map((l) => [l.id, l.replays]);
    expect(
      await call(
        'POST',
        '/v1/dead-letters/replay',
        { sourceTopic: names.topic(Topics.sendRequests.name), includeReplayed: true },
        keyB,
      ),
    ).toMatchObject({ status: 200, body: { replayed: [ofB.id], refused: [] } });
    expect(
      await call(
        'POST',
        '/v1/dead-letters/replay',
        { errorCode: 'CREDENTIAL_NOT_FOUND', includeReplayed: true },
        keyB,
      ),
    ).toMatchObject({ status: 200, body: { replayed: [], refused: [] } });
    expect((await letters('?limit=500')).map((l) => [l.id, l.replays])).toEqual(replayedBefore);
    // B's bytes fail again: a new entry of tenant-b (the replay keeps the key), seen by B only.
    const again = await waitUntil(
      "B's replayed entry dead-lettered again",
      async () => (await letters('?replayed=false', keyB)).find((l) => l.id !== ofB.id),
      { timeoutMs: 30_000 },
    );
    expect(again).toMatchObject({
      tenantId: 'tenant-b',
      headers: { [KafkaHeaders.deadLetterReplay]: ofB.id },
    });
    expect((await letters('?limit=500')).map((l) => l.id)).toEqual(idsOfA);

    // The tenant comes from the key, never from the query or body.
    expect(await call('GET', '/v1/dead-letters?tenantId=tenant-a', undefined, keyB)).toMatchObject({
      status: 400,
      body: { error: { fields: [expect.objectContaining({ field: 'tenantId' })] } },
    });
    expect(
      await call(
        'POST',
        '/v1/dead-letters/replay',
        { tenantId: 'tenant-a', errorCode: 'INVALID_JSON' },
        keyB,
      ),
    ).toMatchObject({ status: 400 });
    // No key: 401; a key without dead-letters:admin: 403.
    const readOnly = await createTenantKey(scheduler.url, 'tenant-a', [
      Scope.CampaignsRead,
      Scope.MessagesRead,
    ]);
    for (const [method, path, body] of [
      ['GET', '/v1/dead-letters', undefined],
      ['GET', `/v1/dead-letters/${idsOfA[0] as string}`, undefined],
      ['POST', '/v1/dead-letters/replay', { ids: [idsOfA[0]] }],
    ] as const) {
      const noKey = await jsonCall(scheduler.url, method, path, body);
      expect({ path, status: noKey.status, body: noKey.body }).toMatchObject({
        path,
        status: 401,
        body: { error: { code: AuthErrorCode.Missing } },
      });
      const noScope = await call(method, path, body, readOnly);
      expect({ path, status: noScope.status, body: noScope.body }).toMatchObject({
        path,
        status: 403,
        body: { error: { code: AuthErrorCode.ScopeMissing } },
      });
    }
  });

  it('keeps a dead letter it cannot store on its partition, retrying, and never dead-letters it back into the topic', async () => {
    const everyEntry = (query = ''): Promise<Letter[]> => letters(query, TEST_OPERATOR_KEY);
    const before = (await everyEntry('?limit=500')).length;
    // The database refuses the insert (the table is away) while a message is dead-lettered.
    await ds.query('RENAME TABLE dead_letters TO dead_letters_away');
    try {
      await producer.send({
        topic: names.topic(Topics.sendRequests.name),
        acks: -1,
        messages: [{ key: 'tenant-b', value: 'still not json' }],
      });
      await waitUntil(
        'the dead letter on its topic',
        () => onDeadLetterTopic.find((d) => d.value === 'still not json'),
        { timeoutMs: 30_000 },
      );
      // Several failed attempts to store it (200 ms, 400 ms, 800 ms, ... apart) go by.
      await new Promise((resolve) => setTimeout(resolve, 4_000));
    } finally {
      await ds.query('RENAME TABLE dead_letters_away TO dead_letters');
    }
    const stored = await waitUntil(
      'the dead letter stored once the table is back',
      async () => (await everyEntry('?errorCode=INVALID_JSON')).find((l) => l.value === 'still not json'),
      { timeoutMs: 30_000 },
    );
    expect(stored.sourceTopic).toBe(names.topic(Topics.sendRequests.name));
    expect(await everyEntry('?limit=500')).toHaveLength(before + 1);
    expect(stored.tenantId).toBe('tenant-b');
    // Nothing was dead-lettered from the dead-letter topic itself.
    expect(onDeadLetterTopic.filter((d) => d.sourceTopic === names.topic(Topics.deadLetters.name))).toEqual(
      [],
    );
  });
});
