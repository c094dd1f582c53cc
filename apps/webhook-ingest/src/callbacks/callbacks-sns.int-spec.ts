import { execFileSync } from 'node:child_process';
import { createSign, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AllTopics, type ProviderEventV1, Topics } from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  createTestDatabase,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  testKafka,
  waitUntil,
} from '@ums/testing';
import type { Consumer } from 'kafkajs';
import type { DataSource } from 'typeorm';

jest.setTimeout(180_000);

const TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:ses-events';

/**
 * The text SNS signs, written here from AWS's documentation ("Verifying the signatures of Amazon
 * SNS messages"), independently of the code under test.
 */
function stringToSign(m: Record<string, string>): string {
  const keys =
    m['Type'] === 'Notification'
      ? ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']
      : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  return keys
    .filter((k) => m[k] !== undefined)
    .map((k) => `${k}\n${m[k] ?? ''}\n`)
    .join('');
}

describe('webhook-ingest SES events through SNS (real certificate, local certificate server)', () => {
  let dir: string;
  let key: string;
  let cert: string;
  let server: Server;
  let origin = '';
  const confirmations: string[] = [];
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let consumer: Consumer;
  let ingest: ServiceProcess;
  const events: ProviderEventV1[] = [];

  beforeAll(async () => {
    // A real self-signed X.509 certificate, as SNS serves its signing certificate.
    dir = mkdtempSync(join(tmpdir(), 'ums-sns-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=sns.test',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    key = readFileSync(join(dir, 'key.pem'), 'utf8');
    cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    server = createServer((req, res) => {
      if (req.url === '/SimpleNotificationService-test.pem') {
        res.writeHead(200, { 'content-type': 'application/x-pem-file' }).end(cert);
      } else if (req.url?.startsWith('/confirm?') === true) {
        confirmations.push(req.url);
        res.writeHead(200, { 'content-type': 'text/xml' }).end('<ConfirmSubscriptionResponse/>');
      } else {
        res.writeHead(404).end();
      }
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    db = await createTestDatabase('ingest_sns');
    ds = createDataSource(db.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    await ds.query(
      `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, rate_ceiling_per_sec, rate_floor_per_sec)
       VALUES ('cred_ses', 'acme', 'ses', 'ses', 'email', ?, 100, 1)`,
      [
        JSON.stringify({
          baseUrl: 'http://127.0.0.1:1',
          region: 'eu-west-1',
          fromAddress: 'news@example.com',
          snsTopicArn: TOPIC_ARN,
        }),
      ],
    );
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    const names = new KafkaNames(namespace);
    await ensureTopics(testKafka(), AllTopics, 1, names);
    consumer = testKafka().consumer({ groupId: 'sns-observer' });
    await consumer.connect();
    await consumer.subscribe({ topics: [names.topic(Topics.providerEvents.name)], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        events.push(JSON.parse(String(message.value)) as ProviderEventV1);
        await Promise.resolve();
      },
    });
    ingest = await startServiceProcess({
      app: 'webhook-ingest',
      env: {
        ...serviceEnv(db.settings.database, namespace),
        INGEST_SNS_HOST_PATTERN: '^127\\.0\\.0\\.1$',
        INGEST_SNS_ALLOW_HTTP: 'true',
      },
    });
  });

  afterAll(async () => {
    await ingest?.process.stop();
    await consumer?.disconnect();
    server?.close();
    await ds?.destroy();
    await db?.drop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  function envelope(fields: Record<string, string>, version: '1' | '2' = '2'): Record<string, string> {
    const message: Record<string, string> = {
      MessageId: randomBytes(8).toString('hex'),
      TopicArn: TOPIC_ARN,
      Timestamp: '2026-05-06T07:08:09.123Z',
      SignatureVersion: version,
      SigningCertURL: `${origin}/SimpleNotificationService-test.pem`,
      ...fields,
    };
    const signer = createSign(version === '2' ? 'RSA-SHA256' : 'RSA-SHA1');
    signer.update(stringToSign(message), 'utf8');
    return { ...message, Signature: signer.sign(key, 'base64') };
  }

  const sesEvent = (eventType: string, extra: Record<string, unknown>): string =>
    JSON.stringify({
      eventType,
      mail: {
        timestamp: '2026-05-06T07:00:00.000Z',
        source: 'news@example.com',
        messageId: `0100018c-${eventType}`,
        destination: ['ana@example.com'],
        tags: { ums_message_id: ['4242'], 'ses:configuration-set': ['events'] },
      },
      ...extra,
    });

  async function post(body: Record<string, string> | string): Promise<{ status: number; code?: string }> {
    const response = await fetch(`${ingest.url}/v1/callbacks/ses/cred_ses`, {
      method: 'POST',
      // SNS posts JSON as text/plain.
      headers: { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': 'Notification' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const json = (await response.json()) as { error?: { code?: string } };
    return { status: response.status, code: json.error?.code };
  }

  it('confirms a verified subscription by visiting its SubscribeURL', async () => {
    const answer = await post(
      envelope({
        Type: 'SubscriptionConfirmation',
        Token: 'tok-123',
        Message: 'You have chosen to subscribe to the topic.',
        SubscribeURL: `${origin}/confirm?Action=ConfirmSubscription&Token=tok-123`,
      }),
    );
    expect(answer.status).toBe(200);
    expect(confirmations).toEqual(['/confirm?Action=ConfirmSubscription&Token=tok-123']);
  });

  it('publishes SES delivery, bounce and complaint notifications (signature versions 1 and 2)', async () => {
    const delivery = envelope(
      {
        Type: 'Notification',
        Subject: 'Amazon SES Email Event Notification',
        Message: sesEvent('Delivery', { delivery: { timestamp: '2026-05-06T07:00:01.500Z' } }),
      },
      '1',
    );
    const bounce = envelope({
      Type: 'Notification',
      Message: sesEvent('Bounce', {
        bounce: {
          bounceType: 'Permanent',
          bounceSubType: 'General',
          timestamp: '2026-05-06T07:00:02.000Z',
          bouncedRecipients: [
            { emailAddress: 'ana@example.com', diagnosticCode: 'smtp; 550 5.1.1 user unknown' },
          ],
        },
      }),
    });
    const complaint = envelope({
      Type: 'Notification',
      Message: sesEvent('Complaint', {
        complaint: {
          timestamp: '2026-05-06T07:00:03.000Z',
          complainedRecipients: [{ emailAddress: 'ana@example.com' }],
        },
      }),
    });
    for (const body of [delivery, bounce, complaint]) expect((await post(body)).status).toBe(200);
    await waitUntil('three SES events', () => events.length >= 3);
    // The complaint is keyed by its sender (another partition), so compare without order.
    const byId = (e: ProviderEventV1): string =>
      e.status?.providerMessageId ?? e.inbound?.providerMessageId ?? '';
    expect(
      [...events].sort((a, b) => byId(a).localeCompare(byId(b))).map((e) => e.status ?? e.inbound),
    ).toEqual([
      {
        messageId: '4242',
        providerMessageId: '0100018c-Bounce',
        status: 'FAILED',
        reason: 'invalid-recipient',
        errorCode: 'Permanent/General',
        errorText: 'smtp; 550 5.1.1 user unknown',
        occurredAt: '2026-05-06T07:00:02.000Z',
      },
      {
        from: 'ana@example.com',
        to: 'news@example.com',
        providerMessageId: '0100018c-Complaint',
        optOut: true,
        occurredAt: '2026-05-06T07:00:03.000Z',
      },
      {
        messageId: '4242',
        providerMessageId: '0100018c-Delivery',
        status: 'DELIVERED',
        occurredAt: '2026-05-06T07:00:01.500Z',
      },
    ]);
  });

  it('refuses tampered messages, other topics, certificates from other hosts and malformed bodies', async () => {
    const good = envelope({ Type: 'Notification', Message: sesEvent('Delivery', {}) });
    expect(await post({ ...good, Message: sesEvent('Open', {}) })).toEqual({
      status: 400,
      code: 'SIGNATURE_INVALID',
    });
    const otherTopic = envelope({
      Type: 'Notification',
      Message: sesEvent('Delivery', {}),
      TopicArn: `${TOPIC_ARN}-x`,
    });
    expect(await post(otherTopic)).toEqual({ status: 400, code: 'SIGNATURE_INVALID' });
    const otherHost = envelope({
      Type: 'Notification',
      Message: sesEvent('Delivery', {}),
      SigningCertURL: origin.replace('127.0.0.1', 'localhost') + '/SimpleNotificationService-test.pem',
    });
    expect(await post(otherHost)).toEqual({ status: 400, code: 'SNS_URL_REFUSED' });
    const notPem = envelope({
      Type: 'Notification',
      Message: sesEvent('Delivery', {}),
      SigningCertURL: `${origin}/cert.txt`,
    });
    expect(await post(notPem)).toEqual({ status: 400, code: 'SNS_URL_REFUSED' });
    expect(await post('{"Type":"Notification"')).toEqual({ status: 400, code: 'CALLBACK_MALFORMED' });
    const { Signature: _dropped, ...unsigned } = good;
    expect(await post(unsigned)).toEqual({ status: 400, code: 'CALLBACK_MALFORMED' });
    // Nothing of the refused ones reached the topic: the verified one, posted last on the same key (so
    // the same partition), arrives with nothing before it.
    expect((await post(good)).status).toBe(200);
    await waitUntil('the verified one', () => events.length >= 4);
    expect(events).toHaveLength(4);
  });
});
