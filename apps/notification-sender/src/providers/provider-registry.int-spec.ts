import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { Channel, FailureReason, Provider } from '@ums/contracts';
import { DEFAULT_PROVIDER_ENDPOINTS, ProviderEndpointPolicy } from '@ums/domain';
import { createDataSource, MetricsRegistry, runPendingMigrations, SecretBox } from '@ums/platform';
import { createTestDatabase } from '@ums/testing';
import { PinoLogger } from 'nestjs-pino';
import type { DataSource } from 'typeorm';
import { CredentialConcurrency } from './credential-concurrency';
import { CredentialLoader } from './credential-loader.service';
import { CredentialsRepository, type StoredCredential } from './credentials.repository';
import { MittoAdapter } from './mitto.adapter';
import type { OutgoingMessage } from './provider-adapter';
import type { ProviderHttpClient } from './provider-http.client';
import { ProviderRegistry } from './provider-registry.service';
import { ProvidersMetrics } from './providers.metrics';
import { SesAdapter } from './ses.adapter';
import { SimulatorAdapter } from './simulator.adapter';
import { closedPort, FakeProviderServer } from './test/fake-provider.server';
import { credentialFor, message, testHttpClient, TWILIO_SID } from './test/provider-fixtures';
import { TwilioAdapter } from './twilio.adapter';
import { WhatsAppCloudAdapter } from './whatsapp-cloud.adapter';

jest.setTimeout(60_000);

/** Counts reads, to see the cache at work. */
class CountingRepository extends CredentialsRepository {
  reads = 0;
  override findById(id: string): Promise<StoredCredential | undefined> {
    this.reads++;
    return super.findById(id);
  }
}

describe('ProviderRegistry with credentials from MariaDB', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let server: FakeProviderServer;
  let http: ProviderHttpClient;
  let repository: CountingRepository;
  let loader: CredentialLoader;
  let registry: ProviderRegistry;
  const box = new SecretBox([{ id: 'k1', key: randomBytes(32) }]);
  const otherBox = new SecretBox([{ id: 'retired', key: randomBytes(32) }]);
  // Every plaintext secret of this suite, to prove none reaches a log line or an outcome.
  const secrets = {
    simulator: `sim-${randomBytes(8).toString('hex')}`,
    whatsApp: `wa-${randomBytes(8).toString('hex')}`,
    twilio: `tw-${randomBytes(8).toString('hex')}`,
    ses: `nocolon${randomBytes(8).toString('hex')}`,
  };
  const logLines: string[] = [];

  async function insertCredential(
    id: string,
    provider: Provider,
    channel: Channel,
    config: unknown,
    sealedSecret: string | null,
  ): Promise<void> {
    await ds.query(
      `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, secret_ciphertext,
         rate_ceiling_per_sec, rate_floor_per_sec, created_at, updated_at)
       VALUES (?, 'tenant-1', ?, ?, ?, ?, ?, 100, 10, UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))`,
      [id, id, provider, channel, JSON.stringify(config), sealedSecret],
    );
  }

  const sms = (id: string): OutgoingMessage => message(id, Channel.Sms, `+49151${id}`, { text: `t${id}` });

  beforeAll(async () => {
    database = await createTestDatabase('ums_providers');
    ds = createDataSource(database.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    server = await FakeProviderServer.start();
    server.handler = (request) => {
      const batch = JSON.parse(request.body) as { messages: { messageId: string }[] };
      return {
        status: 200,
        body: {
          results: batch.messages.map((m) => ({
            messageId: m.messageId,
            status: 'accepted',
            providerMessageId: `sim-${m.messageId}`,
          })),
        },
      };
    };

    await insertCredential(
      'cred_ok',
      Provider.Simulator,
      Channel.Sms,
      { baseUrl: server.url },
      box.seal(secrets.simulator),
    );
    await insertCredential(
      'cred_bad_config',
      Provider.WhatsAppCloud,
      Channel.WhatsApp,
      { baseUrl: 'graph.facebook.com', phoneNumberId: 'abc' },
      box.seal(secrets.whatsApp),
    );
    await insertCredential(
      'cred_foreign_key',
      Provider.Twilio,
      Channel.Sms,
      {
        baseUrl: server.url,
        accountSid: TWILIO_SID,
        from: '+15005550006',
        statusCallbackUrl: 'https://i.example/t',
      },
      otherBox.seal(secrets.twilio),
    );
    await insertCredential(
      'cred_no_secret',
      Provider.Mitto,
      Channel.Sms,
      { baseUrl: server.url, from: 'ACME' },
      null,
    );
    await insertCredential(
      'cred_ses_secret',
      Provider.Ses,
      Channel.Email,
      { baseUrl: server.url, region: 'eu-west-1', fromAddress: 'a@example.com' },
      box.seal(secrets.ses),
    );

    const client = testHttpClient();
    http = client.http;
    const metrics = new ProvidersMetrics(new MetricsRegistry('test'));
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    });
    const logger = new PinoLogger({ pinoHttp: [{ level: 'trace' }, stream] });
    repository = new CountingRepository(ds);
    loader = new CredentialLoader(repository, box, client.config, metrics, logger, client.endpoints);
    const concurrency = new CredentialConcurrency(client.config);
    registry = new ProviderRegistry(
      loader,
      new WhatsAppCloudAdapter(http, concurrency),
      new TwilioAdapter(http, concurrency),
      new SesAdapter(http, concurrency),
      new MittoAdapter(http, concurrency),
      new SimulatorAdapter(http, concurrency),
    );
  });

  afterAll(async () => {
    await http?.onApplicationShutdown();
    await server?.stop();
    if (ds?.isInitialized) await ds.destroy();
    await database?.drop();
  });

  beforeEach(() => server.reset());

  it('sends with a stored credential: settings from JSON, secret decrypted', async () => {
    const outcomes = await registry.send('cred_ok', [sms('1'), sms('2')]);
    expect(outcomes).toEqual([
      // One bulk request: AIMD hears it as one signal.
      { messageId: '1', kind: 'accepted', providerMessageId: 'sim-1', request: 0 },
      { messageId: '2', kind: 'accepted', providerMessageId: 'sim-2', request: 0 },
    ]);
    expect(server.received[0]?.headers['authorization']).toBe(`Bearer ${secrets.simulator}`);
    expect(registry.adapterFor(Provider.Mitto).maxBatch).toBe(1);
    expect(registry.adapterFor(Provider.WhatsAppCloud).maxBatch).toBe(1);
  });

  it.each([
    ['cred_missing', 'credential cred_missing does not exist'],
    ['cred_bad_config', 'config.baseUrl: baseUrl must be an http(s) URL without query or fragment'],
    ['cred_bad_config', 'config.phoneNumberId: phoneNumberId must be the numeric id'],
    ['cred_foreign_key', "secret cannot be opened (SECRET_KEY_UNKNOWN: Secret was sealed with key 'retired'"],
    ['cred_no_secret', 'a mitto credential needs a secret'],
    ['cred_ses_secret', 'an ses secret must be <accessKeyId>:<secretAccessKey>'],
  ])(
    'fails every message of %s permanently with CREDENTIAL_INVALID, sending nothing',
    async (id, problem) => {
      const outcomes = await registry.send(id, [sms('1'), sms('2')]);
      expect(outcomes).toHaveLength(2);
      for (const outcome of outcomes) {
        expect(outcome).toMatchObject({
          kind: 'permanent',
          reason: FailureReason.Other,
          code: 'CREDENTIAL_INVALID',
        });
        expect(outcome.kind !== 'accepted' && outcome.detail).toContain(problem);
      }
      expect(server.received).toHaveLength(0);
    },
  );

  it('reads a credential once per cache period, however many sends ask at once', async () => {
    loader.invalidate('cred_ok');
    const before = repository.reads;
    await Promise.all(Array.from({ length: 20 }, (_, i) => registry.send('cred_ok', [sms(String(i))])));
    expect(repository.reads - before).toBe(1);
    // A change is seen once the entry is dropped (or expires).
    await ds.query('UPDATE credentials SET config = ? WHERE id = ?', [
      JSON.stringify({ baseUrl: `http://127.0.0.1:${await closedPort()}` }),
      'cred_ok',
    ]);
    expect((await registry.send('cred_ok', [sms('a')]))[0]?.kind).toBe('accepted');
    loader.invalidate('cred_ok');
    expect((await registry.send('cred_ok', [sms('b')]))[0]).toMatchObject({
      kind: 'retryable',
      reason: FailureReason.NetworkError,
      code: 'ECONNREFUSED',
    });
  });

  it('treats an unreachable database as retryable CREDENTIAL_UNAVAILABLE and does not cache it', async () => {
    const closed = createDataSource(database.settings);
    const offline = new CountingRepository(closed); // never initialized: every query fails
    const client = testHttpClient();
    const offlineLoader = new CredentialLoader(
      offline,
      box,
      client.config,
      new ProvidersMetrics(new MetricsRegistry('test')),
      new PinoLogger({ pinoHttp: {} }),
      client.endpoints,
    );
    const first = await offlineLoader.load('cred_ok');
    expect(first).toMatchObject({
      ok: false,
      failure: { kind: 'retryable', code: 'CREDENTIAL_UNAVAILABLE', ambiguous: false, congestion: false },
    });
    await offlineLoader.load('cred_ok');
    expect(offline.reads).toBe(2);
  });

  describe('on a deployment whose allowlists do not name the fake provider', () => {
    // The deployment's defaults: public provider APIs only, the simulator off.
    const strict = new ProviderEndpointPolicy({
      allowlists: { ...DEFAULT_PROVIDER_ENDPOINTS, [Provider.Simulator]: [`http://127.0.0.1:*`] },
      simulatorEnabled: false,
    });
    let strictRegistry: ProviderRegistry;
    let strictHttp: ProviderHttpClient;

    beforeAll(async () => {
      await insertCredential(
        'cred_moved',
        Provider.Twilio,
        Channel.Sms,
        {
          baseUrl: server.url,
          accountSid: TWILIO_SID,
          from: '+15005550006',
          statusCallbackUrl: 'https://i.example/t',
        },
        box.seal(secrets.twilio),
      );
      const client = testHttpClient({}, strict);
      strictHttp = client.http;
      const strictLoader = new CredentialLoader(
        repository,
        box,
        client.config,
        new ProvidersMetrics(new MetricsRegistry('test')),
        new PinoLogger({ pinoHttp: {} }),
        strict,
      );
      const concurrency = new CredentialConcurrency(client.config);
      strictRegistry = new ProviderRegistry(
        strictLoader,
        new WhatsAppCloudAdapter(strictHttp, concurrency),
        new TwilioAdapter(strictHttp, concurrency),
        new SesAdapter(strictHttp, concurrency),
        new MittoAdapter(strictHttp, concurrency),
        new SimulatorAdapter(strictHttp, concurrency),
      );
    });

    afterAll(async () => {
      await strictHttp?.onApplicationShutdown();
    });

    it.each([
      [
        'cred_moved',
        'ENDPOINT_NOT_ALLOWED',
        "config.baseUrl must be one of this deployment's twilio endpoints",
      ],
      ['cred_ok', 'PROVIDER_DISABLED', 'provider simulator is not enabled on this deployment'],
    ])('refuses %s with %s and sends nothing', async (id, code, problem) => {
      const outcomes = await strictRegistry.send(id, [sms('1'), sms('2')]);
      expect(outcomes).toHaveLength(2);
      for (const outcome of outcomes) {
        expect(outcome).toMatchObject({ kind: 'permanent', reason: FailureReason.Other, code });
        expect(outcome.kind !== 'accepted' && outcome.detail).toContain(problem);
      }
      expect(server.received).toHaveLength(0);
    });

    it('connects to a host no allowlist names only through the SSRF guard (loopback refused)', async () => {
      // An adapter handed such a credential directly, past the loader's check.
      const credential = credentialFor(
        Provider.Twilio,
        {
          baseUrl: server.url,
          accountSid: TWILIO_SID,
          from: '+15005550006',
          statusCallbackUrl: 'https://i.example/t',
        },
        secrets.twilio,
      );
      const outcomes = await strictRegistry.adapterFor(Provider.Twilio).send(credential, [sms('1')]);
      expect(outcomes).toEqual([
        {
          messageId: '1',
          kind: 'permanent',
          reason: FailureReason.Rejected,
          code: 'ADDRESS_NOT_PUBLIC',
          detail: '127.0.0.1 is not a public address',
        },
      ]);
      expect(server.received).toHaveLength(0);
    });
  });

  it('never writes a secret to the logs, and logs each unusable credential with its problem', () => {
    const logs = logLines.join('');
    for (const secret of Object.values(secrets)) expect(logs).not.toContain(secret);
    expect(logs).toContain('"credentialId":"cred_bad_config"');
    expect(logs).toContain('"code":"CREDENTIAL_INVALID"');
  });
});
