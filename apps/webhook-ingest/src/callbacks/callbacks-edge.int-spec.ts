import { execFileSync } from 'node:child_process';
import { createHmac, createSign, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type ClientRequest, createServer, type IncomingHttpHeaders, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AllTopics, type ProviderEventV1, Topics } from '@ums/contracts';
import {
  createDataSource,
  ensureTopics,
  KafkaNames,
  parseSecretKeys,
  runPendingMigrations,
  SecretBox,
} from '@ums/platform';
import {
  createTestDatabase,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  sumMetric,
  TEST_SECRETS_KEYS,
  testKafka,
  waitUntil,
} from '@ums/testing';
import type { Consumer } from 'kafkajs';
import type { DataSource } from 'typeorm';

jest.setTimeout(300_000);

const MIB = 1_048_576;
// Every secret of this run is unique to it, so finding one in the log can only be a leak.
const tag = randomBytes(6).toString('hex');
const APP_SECRET = `meta-app-secret-${tag}`;
const ACCESS_TOKEN = `wa-access-token-${tag}`;
const VERIFY_TOKEN = `meta-verify-token-${tag}`;
const AUTH_TOKEN = `twilio-auth-token-${tag}`;
const MITTO_TOKEN = `mitto-token-${tag}`;
const MITTO_KEY = `mitto-api-key-${tag}`;
const SIM_SECRET = `sim-secret-${tag}`;
const SNS_TOKEN = `sns-subscribe-token-${tag}`;
const ACCOUNT_SID = `AC${'0'.repeat(31)}7`;
const OTHER_SID = `AC${'0'.repeat(31)}8`;
const TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:ses-events';
/** Every secret and signature sent, to be looked for in the log at the end. */
const sent = new Set<string>([
  APP_SECRET,
  ACCESS_TOKEN,
  VERIFY_TOKEN,
  AUTH_TOKEN,
  MITTO_TOKEN,
  MITTO_KEY,
  SIM_SECRET,
  SNS_TOKEN,
]);
const SECRET_HEADERS = ['x-hub-signature-256', 'x-twilio-signature', 'x-sim-signature', 'authorization'];

// Signatures are computed here from the providers' documented rules, independently of the code under test.
const hubSignature = (secret: string, raw: string | Buffer): string =>
  `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
const twilioSignature = (token: string, url: string, form: URLSearchParams): string => {
  const sorted = [...form.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHmac('sha1', token)
    .update(url + sorted.map(([k, v]) => k + v).join(''), 'utf8')
    .digest('base64');
};

interface Reply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

interface Exchange {
  readonly req: ClientRequest;
  /** The answer, also when it comes before the body was all sent (the server closes then). */
  readonly reply: Promise<Reply>;
}

/** An HTTP request left open for the caller to write; `localAddress` picks the peer address the server sees. */
function begin(
  url: string,
  options: { method?: string; headers?: Record<string, string>; localAddress?: string } = {},
): Exchange {
  const headers = options.headers ?? {};
  for (const name of SECRET_HEADERS) if (headers[name] !== undefined) sent.add(headers[name]);
  let req: ClientRequest | undefined;
  const reply = new Promise<Reply>((resolve, reject) => {
    req = request(
      url,
      { method: options.method ?? 'POST', headers, localAddress: options.localAddress },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    // A write cut short by an early answer and close is expected; only a missing answer is a failure.
    req.on('error', (error) => setTimeout(() => reject(error), 500));
  });
  if (req === undefined) throw new Error('no request');
  reply.catch(() => undefined); // a test that fails early leaves some unawaited
  return { req, reply };
}

function call(
  url: string,
  body: string | Buffer | undefined,
  headers: Record<string, string>,
  options: { method?: string; localAddress?: string } = {},
): Promise<Reply> {
  const exchange = begin(url, { ...options, headers });
  exchange.req.end(body);
  return exchange.reply;
}

const codeOf = (reply: Reply): unknown =>
  (JSON.parse(reply.text) as { error?: { code?: unknown } }).error?.code;

function metaWebhook(...changes: readonly { phoneNumberId: string; statuses: string[] }[]): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'WABA-1',
        changes: changes.map(({ phoneNumberId, statuses }) => ({
          field: 'messages',
          value: {
            messaging_product: 'whatsapp',
            metadata: { display_phone_number: '15550783881', phone_number_id: phoneNumberId },
            statuses: statuses.map((id) => ({
              id,
              status: 'delivered',
              timestamp: '1700000000',
              recipient_id: '4915100000001',
              biz_opaque_callback_data: '101',
            })),
          },
        })),
      },
    ],
  });
}

/** VmRSS or VmHWM of a process, in bytes. */
function memoryOf(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  if (line === undefined) throw new Error(`no ${field} for ${pid}`);
  return Number(/(\d+)\s*kB/.exec(line)?.[1]) * 1024;
}

interface LogLine {
  readonly level?: number;
  readonly msg?: string;
  readonly req?: { url?: string; ip?: string; protocol?: string; headers?: Record<string, string> };
  readonly res?: { statusCode?: number };
  readonly [key: string]: unknown;
}

describe('webhook-ingest edge: unread refusals, byte budgets, forwarded headers, accounts, logs', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let consumer: Consumer;
  let ingest: ServiceProcess;
  let pid: number;
  let certServer: Server;
  let certOrigin = '';
  let dir: string;
  let snsKey = '';
  const events: ProviderEventV1[] = [];
  const byProviderId = (id: string): ProviderEventV1[] =>
    events.filter((e) => (e.status?.providerMessageId ?? e.inbound?.providerMessageId) === id);
  const url = (path: string): string => `${ingest.url}${path}`;
  const logLines = (): LogLine[] =>
    readFileSync(ingest.logFile, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ums-edge-'));
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=sns.test'].concat([
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ]),
      { stdio: 'ignore' },
    );
    snsKey = readFileSync(join(dir, 'key.pem'), 'utf8');
    const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    certServer = createServer((req, res) => {
      if (req.url === '/SimpleNotificationService-test.pem') res.writeHead(200).end(cert);
      else res.writeHead(200, { 'content-type': 'text/xml' }).end('<ConfirmSubscriptionResponse/>');
    });
    certServer.listen(0, '127.0.0.1');
    await once(certServer, 'listening');
    certOrigin = `http://127.0.0.1:${(certServer.address() as AddressInfo).port}`;

    db = await createTestDatabase('ingest_edge');
    ds = createDataSource(db.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const keys = parseSecretKeys(TEST_SECRETS_KEYS);
    if (!('keys' in keys)) throw new Error(keys.error);
    const box = new SecretBox(keys.keys);
    const rows: [string, string, string, Record<string, unknown>, string | null, string | null][] = [
      [
        'cred_wa',
        'whatsapp-cloud',
        'whatsapp',
        { phoneNumberId: '1065', webhookVerifyToken: VERIFY_TOKEN },
        ACCESS_TOKEN,
        APP_SECRET,
      ],
      ['cred_tw', 'twilio', 'sms', { accountSid: ACCOUNT_SID, from: '+15017122661' }, AUTH_TOKEN, null],
      ['cred_mitto', 'mitto', 'sms', { from: 'ACME' }, MITTO_KEY, MITTO_TOKEN],
      ['cred_sim', 'simulator', 'sms', {}, null, SIM_SECRET],
      [
        'cred_ses',
        'ses',
        'email',
        { region: 'eu-west-1', fromAddress: 'news@example.com', snsTopicArn: TOPIC_ARN },
        null,
        null,
      ],
    ];
    for (const [id, provider, channel, config, secret, callbackSecret] of rows) {
      await ds.query(
        `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, secret_ciphertext,
                                  callback_secret_ciphertext, rate_ceiling_per_sec, rate_floor_per_sec)
         VALUES (?, 'tenant-a', ?, ?, ?, ?, ?, ?, 100, 1)`,
        [
          id,
          id,
          provider,
          channel,
          JSON.stringify({ baseUrl: 'http://127.0.0.1:1', ...config }),
          secret === null ? null : box.seal(secret),
          callbackSecret === null ? null : box.seal(callbackSecret),
        ],
      );
    }
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    const names = new KafkaNames(namespace);
    await ensureTopics(testKafka(), AllTopics, 1, names);
    consumer = testKafka().consumer({ groupId: 'edge-observer' });
    await consumer.connect();
    await consumer.subscribe({ topics: [names.topic(Topics.providerEvents.name)], fromBeginning: true });
    // Joined before the tests start: on a loaded machine joining can take longer than a test waits.
    const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
    await consumer.run({
      eachMessage: async ({ message }) => {
        events.push(JSON.parse(String(message.value)) as ProviderEventV1);
        await Promise.resolve();
      },
    });
    await joined;
    ingest = await startServiceProcess({
      app: 'webhook-ingest',
      env: {
        ...serviceEnv(db.settings.database, namespace),
        LOG_LEVEL: 'trace',
        // The test connects from 127.0.0.1 (a client) and from 127.0.0.2 (the "proxy").
        TRUSTED_PROXY_CIDRS: '127.0.0.2/32',
        // As large as the largest route limit (WhatsApp and simulator: 8 MiB by default).
        INGEST_MAX_INFLIGHT_BYTES: String(8 * MIB),
        INGEST_TWILIO_MAX_BODY_BYTES: '4096',
        INGEST_SNS_HOST_PATTERN: '^127\\.0\\.0\\.1$',
        INGEST_SNS_ALLOW_HTTP: 'true',
      },
    });
    pid = ingest.process.pid ?? 0;
  });

  afterAll(async () => {
    await ingest?.process.stop();
    await consumer?.disconnect();
    certServer?.close();
    await ds?.destroy();
    await db?.drop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('answers 100 concurrent 8 MiB posts to an unknown credential 404, unread: RSS grows < 50 MB', async () => {
    const body = Buffer.alloc(8 * MIB, 0x20);
    const unknown = (): Promise<Reply> =>
      call(url('/v1/callbacks/whatsapp/cred_unknown'), body, {
        'content-type': 'application/json',
        'content-length': String(body.length),
      });
    for (let i = 0; i < 5; i++) expect((await unknown()).status).toBe(404); // code paths warmed up
    const before = memoryOf(pid, 'VmRSS');
    // Resets the peak (VmHWM) to the current RSS, so VmHWM afterwards is the peak of this burst.
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    const replies = await Promise.all(Array.from({ length: 100 }, unknown));
    const peak = memoryOf(pid, 'VmHWM');
    expect(replies.map((r) => `${r.status} ${String(codeOf(r))}`)).toEqual(
      Array.from({ length: 100 }, () => '404 CREDENTIAL_NOT_FOUND'),
    );
    const growth = peak - before;
    process.stdout.write(
      `ingest RSS ${(before / MIB).toFixed(1)} MiB, peak ${(peak / MIB).toFixed(1)} MiB during 100 x 8 MiB\n`,
    );
    expect(growth).toBeLessThan(50 * 1_000_000);
  });

  it('refuses an oversized body with 413 while it streams, and a declared one unread', async () => {
    const twilio = url('/v1/callbacks/twilio/cred_tw');
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const declared = begin(twilio, { headers: { ...form, 'content-length': '5000' } });
    declared.req.flushHeaders();
    const unread = await declared.reply;
    expect([unread.status, codeOf(unread), unread.headers['connection']]).toEqual([
      413,
      'BODY_TOO_LARGE',
      'close',
    ]);
    // No declared length, and the request is never ended: the answer comes once 4096 bytes are passed.
    const streamed = begin(twilio, { headers: form });
    let answered: Reply | undefined;
    void streamed.reply.then(
      (reply) => (answered = reply),
      () => undefined,
    );
    let written = 0;
    while (answered === undefined && written < 64 * MIB) {
      written += 1024;
      if (!streamed.req.write(`Body=${'x'.repeat(1019)}`)) {
        await Promise.race([once(streamed.req, 'drain'), streamed.reply]);
      }
    }
    const reply = await streamed.reply;
    expect([reply.status, codeOf(reply), reply.headers['connection']]).toEqual([
      413,
      'BODY_TOO_LARGE',
      'close',
    ]);
    expect(written).toBeLessThan(64 * MIB);
  });

  it('answers 503 with Retry-After, unread, beyond INGEST_MAX_INFLIGHT_BYTES, and takes bodies again after', async () => {
    const simulator = url('/v1/callbacks/simulator/cred_sim');
    const json = { 'content-type': 'application/json' };
    const inFlight = (): Promise<number> => sumMetric([ingest.managementUrl], 'ums_ingest_in_flight_bytes');
    // Holds 6 of the 8 MiB: its length is declared, a little of it sent.
    const holder = begin(simulator, { headers: { ...json, 'content-length': String(6 * MIB) } });
    holder.req.write(Buffer.alloc(64 * 1024, 0x20));
    await waitUntil('6 MiB in flight', async () => (await inFlight()) === 6 * MIB);
    const declared = await call(simulator, Buffer.alloc(3 * MIB, 0x20), {
      ...json,
      'content-length': String(3 * MIB),
    });
    expect([declared.status, declared.headers['retry-after'], codeOf(declared)]).toEqual([
      503,
      '1',
      'IN_FLIGHT_BYTES_EXCEEDED',
    ]);
    // Chunked: refused once its chunks pass the remaining 2 MiB, before it ends.
    const chunked = begin(simulator, { headers: json });
    let answered = false;
    void chunked.reply.then(
      () => (answered = true),
      () => undefined,
    );
    for (let i = 0; i < 64 && !answered; i++) {
      if (!chunked.req.write(Buffer.alloc(256 * 1024, 0x20))) {
        await Promise.race([once(chunked.req, 'drain'), chunked.reply]);
      }
    }
    const cut = await chunked.reply;
    expect([cut.status, cut.headers['retry-after'], codeOf(cut)]).toEqual([
      503,
      '1',
      'IN_FLIGHT_BYTES_EXCEEDED',
    ]);
    expect(await inFlight()).toBe(6 * MIB);
    // The holder finishes (unsigned: refused after reading), and its bytes are given back.
    holder.req.end(Buffer.alloc(6 * MIB - 64 * 1024, 0x20));
    expect(codeOf(await holder.reply)).toBe('SIGNATURE_INVALID');
    expect(await inFlight()).toBe(0);
    const again = await call(simulator, Buffer.alloc(3 * MIB, 0x20), json);
    expect(codeOf(again)).toBe('SIGNATURE_INVALID');
    expect(await sumMetric([ingest.managementUrl], 'ums_ingest_in_flight_refusals_total')).toBe(2);
  });

  it('answers 5xx without the internal error text, which goes to the log only', async () => {
    await ds.query('RENAME TABLE credentials TO credentials_moved_away');
    let reply: Reply;
    try {
      reply = await call(url(`/v1/callbacks/mitto/cred_not_cached?ums_token=${MITTO_TOKEN}`), '', {
        'content-type': 'application/x-www-form-urlencoded',
      });
    } finally {
      await ds.query('RENAME TABLE credentials_moved_away TO credentials');
    }
    expect([reply.status, reply.headers['retry-after'], JSON.parse(reply.text)]).toEqual([
      503,
      '1',
      { error: { code: 'CREDENTIALS_UNAVAILABLE', message: 'Service unavailable; retry later' } },
    ]);
    await waitUntil('the error in the log', () =>
      logLines().some((l) => l.res?.statusCode === 503 && JSON.stringify(l.err).includes("doesn't exist")),
    );
  });

  it('believes X-Forwarded-* only from TRUSTED_PROXY_CIDRS (Twilio signature URL, request log)', async () => {
    const path = '/v1/callbacks/twilio/cred_tw?ums_message_id=301';
    const form = new URLSearchParams({
      AccountSid: ACCOUNT_SID,
      MessageSid: 'SMPROXY1',
      MessageStatus: 'delivered',
      From: '+15017122661',
      To: '+4915100000002',
    });
    const forwarded = {
      'content-type': 'application/x-www-form-urlencoded',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'hooks.example.com',
      'x-forwarded-for': '203.0.113.9',
    };
    const publicUrl = `https://hooks.example.com${path}`;
    const direct = (localAddress: string, signedUrl: string): Promise<Reply> =>
      call(
        url(path),
        form.toString(),
        { ...forwarded, 'x-twilio-signature': twilioSignature(AUTH_TOKEN, signedUrl, form) },
        { localAddress },
      );
    // From a client: the forwarded URL is not the one it called.
    expect(codeOf(await direct('127.0.0.1', publicUrl))).toBe('SIGNATURE_INVALID');
    expect((await direct('127.0.0.1', url(path))).status).toBe(200);
    // From the trusted proxy: it is.
    expect((await direct('127.0.0.2', publicUrl)).status).toBe(200);
    expect(codeOf(await direct('127.0.0.2', url(path)))).toBe('SIGNATURE_INVALID');
    // Meta's GET challenge (a Fastify route) under the same rule.
    for (const [localAddress, challenge] of [
      ['127.0.0.1', 'from-client'],
      ['127.0.0.2', 'from-proxy'],
    ] as const) {
      const reply = await call(
        url(
          `/v1/callbacks/whatsapp/cred_wa?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=${challenge}`,
        ),
        undefined,
        forwarded,
        { method: 'GET', localAddress },
      );
      expect([reply.status, reply.text]).toEqual([200, challenge]);
    }
    const seen = await waitUntil('the request lines', () => {
      const lines = logLines().filter(
        (l) => l.req?.url?.includes('ums_message_id=301') || l.req?.url?.includes('hub.challenge=from-'),
      );
      return lines.length >= 6 ? lines : undefined;
    });
    expect(seen.map((l) => [l.res?.statusCode, l.req?.ip, l.req?.protocol])).toEqual([
      [400, '127.0.0.1', 'http'],
      [200, '127.0.0.1', 'http'],
      [200, '203.0.113.9', 'https'],
      [400, '203.0.113.9', 'https'],
      [200, '127.0.0.1', 'http'],
      [200, '203.0.113.9', 'https'],
    ]);
  });

  it("binds WhatsApp callbacks to the credential's phone_number_id and Twilio callbacks to its AccountSid", async () => {
    const body = metaWebhook(
      { phoneNumberId: '1065', statuses: ['wamid.OWN'] },
      { phoneNumberId: '2001', statuses: ['wamid.FOREIGN1', 'wamid.FOREIGN2'] },
    );
    const wa = await call(url('/v1/callbacks/whatsapp/cred_wa'), body, {
      'content-type': 'application/json',
      'x-hub-signature-256': hubSignature(APP_SECRET, body),
    });
    expect([wa.status, JSON.parse(wa.text)]).toEqual([200, { published: 1, ignored: 1 }]);
    const twilioUrl = url('/v1/callbacks/twilio/cred_tw');
    const twilio = async (form: URLSearchParams): Promise<Reply> =>
      call(twilioUrl, form.toString(), {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilioSignature(AUTH_TOKEN, twilioUrl, form),
      });
    const status = { MessageSid: 'SMOTHER1', MessageStatus: 'delivered', To: '+4915100000002' };
    const other = await twilio(new URLSearchParams({ AccountSid: OTHER_SID, ...status }));
    expect([other.status, JSON.parse(other.text)]).toEqual([
      400,
      {
        error: {
          code: 'ACCOUNT_MISMATCH',
          message: "AccountSid: is not the credential's account",
          fields: [{ field: 'AccountSid', reason: "is not the credential's account" }],
        },
      },
    ]);
    expect(codeOf(await twilio(new URLSearchParams(status)))).toBe('ACCOUNT_MISMATCH');
    // The last one, of the right account, on the same key as the refused ones.
    expect(
      (await twilio(new URLSearchParams({ AccountSid: ACCOUNT_SID, ...status, MessageSid: 'SMOWN1' })))
        .status,
    ).toBe(200);
    await waitUntil(
      'own events',
      () => byProviderId('wamid.OWN').length === 1 && byProviderId('SMOWN1').length === 1,
      { timeoutMs: 90_000 },
    );
    expect(events.filter((e) => /FOREIGN|SMOTHER/.test(e.status?.providerMessageId ?? ''))).toEqual([]);
    expect(
      await sumMetric([ingest.managementUrl], 'ums_ingest_foreign_account_total', {
        provider: 'whatsapp-cloud',
      }),
    ).toBe(1);
    expect(
      await sumMetric([ingest.managementUrl], 'ums_ingest_foreign_account_total', { provider: 'twilio' }),
    ).toBe(2);
    const warning = await waitUntil('the warning', () =>
      logLines().find((l) => l.msg?.startsWith('WhatsApp callback changes of another phone_number_id')),
    );
    expect(warning).toMatchObject({
      level: 40,
      credentialId: 'cred_wa',
      foreignPhoneNumberIds: ['2001'],
      changes: 1,
    });
  });

  it('keeps every secret out of the log of a run that saw every kind of callback', async () => {
    const json = { 'content-type': 'application/json' };
    const wrong = `wrong-${tag}`;
    sent.add(wrong);
    // WhatsApp: the verify GET with the right and a wrong token, a signed and a badly signed webhook.
    const verify = (token: string): Promise<Reply> =>
      call(
        url(`/v1/callbacks/whatsapp/cred_wa?hub.mode=subscribe&hub.verify_token=${token}&hub.challenge=77`),
        undefined,
        {},
        { method: 'GET' },
      );
    expect((await verify(VERIFY_TOKEN)).status).toBe(200);
    expect((await verify(wrong)).status).toBe(400);
    const wa = metaWebhook({ phoneNumberId: '1065', statuses: ['wamid.LOG1'] });
    const waUrl = url('/v1/callbacks/whatsapp/cred_wa');
    expect(
      (await call(waUrl, wa, { ...json, 'x-hub-signature-256': hubSignature(APP_SECRET, wa) })).status,
    ).toBe(200);
    expect((await call(waUrl, wa, { ...json, 'x-hub-signature-256': hubSignature(wrong, wa) })).status).toBe(
      400,
    );
    // Twilio, also with credentials in an Authorization header, as a URL with user:password@ sends them.
    const twUrl = url('/v1/callbacks/twilio/cred_tw?ums_message_id=302');
    const form = new URLSearchParams({
      AccountSid: ACCOUNT_SID,
      MessageSid: 'SMLOG1',
      MessageStatus: 'sent',
    });
    const twHeaders = {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`ums:${wrong}`).toString('base64')}`,
    };
    const signedTw = { ...twHeaders, 'x-twilio-signature': twilioSignature(AUTH_TOKEN, twUrl, form) };
    expect((await call(twUrl, form.toString(), signedTw)).status).toBe(200);
    const badTw = { ...twHeaders, 'x-twilio-signature': twilioSignature(wrong, twUrl, form) };
    expect((await call(twUrl, form.toString(), badTw)).status).toBe(400);
    // Mitto and the simulator, right and wrong.
    // Mitto's token rides in the registered URL's query: the request log must redact it.
    const mitto = 'reference=303&id=mitto-log-1&status=delivered&timestamp=2026-01-01T00%3A00%3A00Z';
    const mittoUrl = (token: string): string =>
      url(`/v1/callbacks/mitto/cred_mitto?ums_token=${token}&${mitto}`);
    const formType = { 'content-type': 'application/x-www-form-urlencoded' };
    expect((await call(mittoUrl(MITTO_TOKEN), '', formType)).status).toBe(200);
    expect((await call(mittoUrl(wrong), '', formType)).status).toBe(401);
    const sim = JSON.stringify({ events: [] });
    const simUrl = url('/v1/callbacks/simulator/cred_sim');
    expect(
      (await call(simUrl, sim, { ...json, 'x-sim-signature': hubSignature(SIM_SECRET, sim) })).status,
    ).toBe(200);
    expect((await call(simUrl, sim, { ...json, 'x-sim-signature': hubSignature(wrong, sim) })).status).toBe(
      400,
    );
    // SES through SNS: a subscription confirmation (its token in the SubscribeURL) and a notification.
    const snsUrl = url('/v1/callbacks/ses/cred_ses');
    const sns = { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': 'Notification' };
    const confirmation = snsEnvelope({
      Type: 'SubscriptionConfirmation',
      Token: SNS_TOKEN,
      Message: 'You have chosen to subscribe to the topic.',
      SubscribeURL: `${certOrigin}/confirm?Action=ConfirmSubscription&Token=${SNS_TOKEN}`,
    });
    expect((await call(snsUrl, JSON.stringify(confirmation), sns)).status).toBe(200);
    const notification = snsEnvelope({
      Type: 'Notification',
      Message: JSON.stringify({
        eventType: 'Delivery',
        mail: {
          timestamp: '2026-05-06T07:00:00.000Z',
          source: 'news@example.com',
          messageId: 'ses-log-1',
          destination: ['a@example.com'],
          tags: { ums_message_id: ['4243'] },
        },
        delivery: { timestamp: '2026-05-06T07:00:01.000Z' },
      }),
    });
    expect((await call(snsUrl, JSON.stringify(notification), sns)).status).toBe(200);
    for (const envelope of [confirmation, notification]) sent.add(envelope['Signature'] ?? '');

    // Every request above has its line (trace level logs successes too), so the log was written.
    const lines = await waitUntil('a request line for every route', () => {
      const all = logLines();
      const urls = all.map((l) => l.req?.url ?? '');
      const routes = [
        '/whatsapp/cred_wa?',
        '/whatsapp/cred_wa',
        '/twilio/cred_tw',
        '/mitto/cred_mitto',
        '/simulator/cred_sim',
        '/ses/cred_ses',
      ];
      return routes.every((r) => urls.some((u) => u.includes(`/v1/callbacks${r}`))) &&
        urls.filter((u) => u.includes('ses/cred_ses')).length >= 2
        ? all
        : undefined;
    });
    expect(lines.some((l) => l.req?.headers?.['content-type'] !== undefined)).toBe(true);
    const log = readFileSync(ingest.logFile, 'utf8');
    const leaked = [...sent].filter((secret) => secret !== '' && log.includes(secret));
    expect(leaked).toEqual([]);
    expect(sent.size).toBeGreaterThanOrEqual(20);
  });

  function snsEnvelope(fields: Record<string, string>): Record<string, string> {
    const message: Record<string, string> = {
      MessageId: randomBytes(8).toString('hex'),
      TopicArn: TOPIC_ARN,
      Timestamp: '2026-05-06T07:08:09.123Z',
      SignatureVersion: '2',
      SigningCertURL: `${certOrigin}/SimpleNotificationService-test.pem`,
      ...fields,
    };
    // The text SNS signs, from AWS's documentation ("Verifying the signatures of Amazon SNS messages").
    const keys =
      message['Type'] === 'Notification'
        ? ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']
        : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
    const text = keys
      .filter((k) => message[k] !== undefined)
      .map((k) => `${k}\n${message[k] ?? ''}\n`)
      .join('');
    const signer = createSign('RSA-SHA256');
    signer.update(text, 'utf8');
    return { ...message, Signature: signer.sign(snsKey, 'base64') };
  }
});
