import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { AllTopics, ALL_SCOPES, DecodeErrorCode, type Scope } from '@ums/contracts';
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
  TEST_OPERATOR_KEY,
  testKafka,
  waitUntil,
} from '@ums/testing';
import { registerInternalSubscriber } from '../stack/pipeline-campaign';
import type { DataSource } from 'typeorm';

export const TENANT_A = 'matrix-a';
export const TENANT_B = 'matrix-b';

/** Tenant A's resources, one of each kind the APIs address by id. */
export interface Resources {
  credentialId: string;
  campaignId: string;
  runId: string;
  importId: string;
  messageId: string;
  idempotencyKey: string;
  deadLetterId: string;
  subscriberId: string;
  deliveryId: string;
  apiKeyId: string;
  /** An address tenant A opted out of SMS (E.164). */
  optOutAddress: string;
  contactListId: string;
  /** An import of the contact list (a URL import the fetcher's SSRF guard failed). */
  listImportId: string;
  testSendId: string;
}

/** What the database and Kafka hold, to tell whether a refused call changed anything. */
export interface Snapshot {
  readonly tables: Record<string, string>;
  readonly offsets: Record<string, string>;
}

/** The scheduler and the dispatcher as processes on one fresh database and Kafka namespace. */
export class AccessStack {
  scheduler!: ServiceProcess;
  dispatcher!: ServiceProcess;
  ds!: DataSource;
  private database!: Awaited<ReturnType<typeof createTestDatabase>>;
  private names!: KafkaNames;
  private readonly scopedKeys = new Map<Scope, string>();
  keyA = '';
  keyB = '';

  async start(): Promise<void> {
    this.database = await createTestDatabase('ums_access_matrix');
    this.ds = createDataSource(this.database.settings);
    await this.ds.initialize();
    await runPendingMigrations(this.ds);
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    this.names = new KafkaNames(namespace);
    await ensureTopics(testKafka(), AllTopics, 1, this.names);
    const env = {
      ...serviceEnv(this.database.settings.database, namespace),
      PROVIDER_SIMULATOR_ENABLED: 'true',
      WEBHOOK_INTERNAL_SUBSCRIBERS_ALLOWED: 'true',
    };
    [this.scheduler, this.dispatcher] = await Promise.all([
      startServiceProcess({ app: 'campaign-scheduler', env }),
      startServiceProcess({ app: 'webhook-dispatcher', env }),
    ]);
    this.keyA = await createTenantKey(this.scheduler.url, TENANT_A);
    this.keyB = await createTenantKey(this.scheduler.url, TENANT_B);
  }

  async stop(): Promise<void> {
    await Promise.all([this.scheduler?.process.stop(), this.dispatcher?.process.stop()]);
    if (this.ds?.isInitialized) await this.ds.destroy();
    await this.database?.drop();
  }

  /** Every scoped route each service logged at start-up, as `METHOD /path scope`. */
  loggedRoutes(): { service: 'scheduler' | 'dispatcher'; route: string; scope: string }[] {
    const found: { service: 'scheduler' | 'dispatcher'; route: string; scope: string }[] = [];
    for (const [service, process] of [
      ['scheduler', this.scheduler],
      ['dispatcher', this.dispatcher],
    ] as const) {
      const line = readFileSync(process.logFile, 'utf8')
        .split('\n')
        .find((l) => l.includes('"routes":['));
      if (line === undefined) throw new Error(`${service} logged no route list`);
      for (const entry of (JSON.parse(line) as { routes: string[] }).routes) {
        const [method, path, scope] = entry.split(' ');
        if (scope !== 'public') found.push({ service, route: `${method} ${path}`, scope: scope ?? '' });
      }
    }
    return found;
  }

  /** A tenant-A key holding every scope but `scope`. */
  async keyWithout(scope: Scope): Promise<string> {
    const known = this.scopedKeys.get(scope);
    if (known !== undefined) return known;
    const key = await createTenantKey(
      this.scheduler.url,
      TENANT_A,
      ALL_SCOPES.filter((s) => s !== scope),
    );
    this.scopedKeys.set(scope, key);
    return key;
  }

  call(
    service: 'scheduler' | 'dispatcher',
    method: string,
    path: string,
    body?: unknown,
    key?: string,
    headers: Readonly<Record<string, string>> = {},
  ): Promise<JsonAnswer> {
    const base = service === 'scheduler' ? this.scheduler.url : this.dispatcher.url;
    return jsonCall(base, method, path, body, key, headers);
  }

  /**
   * A GET of a live stream (server-sent events): a refusal's JSON answer, or the stream's first event
   * with its data as the body, after which the stream is closed. On a connection of its own (node:http),
   * closed by destroying it.
   */
  streamCall(path: string, key?: string): Promise<JsonAnswer> {
    return new Promise((resolve, reject) => {
      const headers = { accept: 'text/event-stream', ...(key === undefined ? {} : bearer(key)) };
      const request = get(`${this.scheduler.url}${path}`, { headers, agent: false }, (response) => {
        const status = response.statusCode ?? 0;
        const events = String(response.headers['content-type']).startsWith('text/event-stream');
        let text = '';
        response.setEncoding('utf8');
        response.on('error', () => undefined);
        response.on('data', (chunk: string) => {
          text += chunk;
          const event = events
            ? text.split('\n\n').find((b, i, all) => i < all.length - 1 && !b.startsWith(':'))
            : undefined;
          if (event === undefined) return;
          request.destroy();
          const data = event.split('\n').find((line) => line.startsWith('data: '));
          resolve({
            status,
            body: JSON.parse(data?.slice(6) ?? '{}') as Record<string, unknown>,
            text: event,
          });
        });
        response.on('end', () =>
          resolve({ status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>), text }),
        );
      });
      request.on('error', reject);
    });
  }

  /** Waits until no contact list import is RUNNING (URL imports end in the background). */
  async listImportsEnded(): Promise<void> {
    await waitUntil('contact list imports to end', async () => {
      const [row] = (await this.ds.query(
        `SELECT COUNT(*) AS running FROM contact_list_imports WHERE state = 'RUNNING'`,
      )) as { running: string | number }[];
      return Number(row?.running) === 0;
    });
  }

  async snapshot(): Promise<Snapshot> {
    const tables = (await this.ds.query(
      `SELECT table_name AS name FROM information_schema.tables
       WHERE table_schema = DATABASE() AND table_name NOT IN ('audit_events', 'migrations')`,
    )) as { name: string }[];
    const sums = (await this.ds.query(
      `CHECKSUM TABLE ${tables.map((t) => `\`${t.name}\``).join(', ')} EXTENDED`,
    )) as { Table: string; Checksum: string | number | null }[];
    const admin = testKafka().admin();
    await admin.connect();
    const offsets: Record<string, string> = {};
    try {
      for (const topic of AllTopics) {
        const name = this.names.topic(topic.name);
        for (const p of await admin.fetchTopicOffsets(name)) offsets[`${name}/${p.partition}`] = p.high;
      }
    } finally {
      await admin.disconnect();
    }
    return {
      tables: Object.fromEntries(sums.map((s) => [s.Table, String(s.Checksum)])),
      offsets,
    };
  }
}

function created(answer: JsonAnswer, what: string): Record<string, unknown> {
  if (answer.status < 200 || answer.status > 202) {
    throw new Error(`${what} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  }
  return answer.body;
}

/** Tenant A's resources, made through the APIs where they can be, else as the pipeline writes them. */
export async function seedTenantA(stack: AccessStack, receiverUrl: string): Promise<Resources> {
  const key = stack.keyA;
  const credential = created(
    await stack.call(
      'scheduler',
      'POST',
      '/v1/credentials',
      {
        name: 'sim',
        provider: 'simulator',
        channel: 'sms',
        secret: 'matrix-secret',
        rateCeilingPerSec: 10,
        rateFloorPerSec: 1,
      },
      key,
    ),
    'credential',
  );
  const campaign = created(
    await stack.call(
      'scheduler',
      'POST',
      '/v1/campaigns',
      {
        name: 'matrix',
        channel: 'sms',
        credentialId: credential['id'],
        template: { text: 'Hi {{first_name}}' },
        defaultCountry: 'DE',
        // Far ahead: the run exists but never becomes due while the matrix runs.
        schedule: { kind: 'at', at: '2099-01-01T00:00:00Z' },
      },
      key,
    ),
    'campaign',
  );
  const campaignId = String(campaign['id']);
  const audience = created(
    await stack.call(
      'scheduler',
      'POST',
      `/v1/campaigns/${campaignId}/audience/inline`,
      { recipients: [{ address: '+4915100000001', variables: { first_name: 'Ada' } }] },
      key,
    ),
    'audience',
  );
  created(
    await stack.call('scheduler', 'POST', `/v1/campaigns/${campaignId}/start`, undefined, key),
    'start',
  );
  const [run] = (await stack.ds.query('SELECT id FROM runs WHERE campaign_id = ?', [campaignId])) as {
    id: string;
  }[];
  const [contact] = (await stack.ds.query('SELECT id FROM contacts WHERE campaign_id = ?', [campaignId])) as {
    id: string;
  }[];
  const runId = String(run?.id);
  const messageId = await insertMessage(stack.ds, {
    campaignId,
    runId,
    contactId: String(contact?.id),
    credentialId: String(credential['id']),
  });
  await insertMessage(stack.ds, {
    campaignId,
    runId: null,
    contactId: null,
    credentialId: String(credential['id']),
    idempotencyKey: 'matrix-single-1',
  });
  // A loopback subscriber is an internal one, which only the operator registers (for tenant A).
  const subscriber = await registerInternalSubscriber(
    stack.dispatcher.url,
    { operatorKey: TEST_OPERATOR_KEY, tenantId: TENANT_A },
    { url: receiverUrl, eventTypes: ['message.status'], internal: true },
  );
  const subscriberId = String(subscriber['id']);
  const delivery = (await stack.ds.query(
    `INSERT INTO deliveries (subscriber_id, event_id, event_type, payload, state, attempts, delivered_at)
     VALUES (?, 'evt-matrix-1', 'message.status', '{}', 'DELIVERED', 1, UTC_TIMESTAMP(3))`,
    [subscriberId],
  )) as { insertId: number };
  const deadLetter = (await stack.ds.query(
    `INSERT INTO dead_letters (consumer_group, source_topic, source_partition, source_offset, message_key,
       message_value, value_encoding, headers, error_code, reason, attempts, failed_at, tenant_id)
     VALUES ('matrix', 'ums.send-requests.v1', 0, '1', ?, '{}', 'utf8', '{}', ?, 'matrix', 1,
       UTC_TIMESTAMP(3), ?)`,
    [TENANT_A, DecodeErrorCode.SchemaViolation, TENANT_A],
  )) as { insertId: number };
  const optOut = created(
    await stack.call(
      'scheduler',
      'PUT',
      `/v1/opt-outs/sms/${encodeURIComponent('+4915100000077')}`,
      undefined,
      key,
    ),
    'opt-out',
  );
  // A key of A's to revoke; not the one the matrix calls with.
  const spare = created(
    await stack.call('scheduler', 'POST', '/v1/api-keys', { name: 'spare' }, key),
    'spare key',
  );
  const list = await seedContactList(stack);
  const testSend = created(
    await stack.call(
      'scheduler',
      'POST',
      `/v1/campaigns/${campaignId}/test-sends`,
      { recipients: [{ to: '+4915100000005', variables: { first_name: 'Ada' } }] },
      key,
    ),
    'test send',
  );
  return {
    ...list,
    testSendId: String(testSend['id']),
    credentialId: String(credential['id']),
    campaignId,
    runId,
    importId: String(audience['id']),
    messageId,
    idempotencyKey: 'matrix-single-1',
    deadLetterId: String(deadLetter.insertId),
    subscriberId,
    deliveryId: String(delivery.insertId),
    apiKeyId: String(spare['id']),
    optOutAddress: String(optOut['address']),
  };
}

/**
 * A contact list of tenant A's with one import: from a loopback URL, which the fetcher's SSRF guard
 * fails at once. Waits for it to end, so that nothing moves while refusals are tried.
 */
async function seedContactList(stack: AccessStack): Promise<{ contactListId: string; listImportId: string }> {
  const list = created(
    await stack.call(
      'scheduler',
      'POST',
      '/v1/contact-lists',
      { name: 'matrix', channel: 'sms' },
      stack.keyA,
    ),
    'contact list',
  );
  const contactListId = String(list['id']);
  const started = await stack.call(
    'scheduler',
    'POST',
    `/v1/contact-lists/${contactListId}/imports/url`,
    { url: 'http://127.0.0.1:9/list.csv' },
    stack.keyA,
  );
  if (started.status !== 202) throw new Error(`list import answered ${started.status}: ${started.text}`);
  const listImportId = String(started.body['id']);
  await stack.listImportsEnded();
  return { contactListId, listImportId };
}

async function insertMessage(
  ds: DataSource,
  m: {
    campaignId: string;
    runId: string | null;
    contactId: string | null;
    credentialId: string;
    idempotencyKey?: string;
  },
): Promise<string> {
  const result = (await ds.query(
    `INSERT INTO messages (run_id, campaign_id, tenant_id, contact_id, channel, credential_id, recipient, lane,
       state, idempotency_key)
     VALUES (?, ?, ?, ?, 'sms', ?, '+4915100000001', ?, 'SENT', ?)`,
    [
      m.runId,
      m.campaignId,
      TENANT_A,
      m.contactId,
      m.credentialId,
      m.runId === null ? 'priority' : 'bulk',
      m.idempotencyKey ?? null,
    ],
  )) as { insertId: number };
  return String(result.insertId);
}
