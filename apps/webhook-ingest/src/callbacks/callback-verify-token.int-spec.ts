import { randomBytes } from 'node:crypto';
import { createDataSource, loadConfig, runPendingMigrations, SecretBox } from '@ums/platform';
import { createTestDatabase } from '@ums/testing';
import { PinoLogger } from 'nestjs-pino';
import type { DataSource } from 'typeorm';
import { CallbackCredentialsRepository } from './callback-credentials.repository';
import { CallbackCredentials } from './callback-credentials.service';
import { CallbacksConfig } from './callbacks.config';

jest.setTimeout(60_000);

/** Meta's verify token: sealed in verify_token_ciphertext, a plain config.webhookVerifyToken only as a fallback. */
describe('CallbackCredentials: the WhatsApp verify token', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let credentials: CallbackCredentials;
  const box = new SecretBox([{ id: 'k1', key: randomBytes(32) }]);

  async function insert(id: string, config: object, sealedVerifyToken: string | null): Promise<void> {
    await ds.query(
      `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, verify_token_ciphertext,
         rate_ceiling_per_sec, rate_floor_per_sec)
       VALUES (?, 'acme', ?, 'whatsapp-cloud', 'whatsapp', ?, ?, 10, 1)`,
      [
        id,
        id,
        JSON.stringify({ baseUrl: 'https://graph.facebook.com', phoneNumberId: '1065', ...config }),
        sealedVerifyToken,
      ],
    );
  }

  beforeAll(async () => {
    database = await createTestDatabase('ums_ingest_verify_token');
    ds = createDataSource(database.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    credentials = new CallbackCredentials(
      new CallbackCredentialsRepository(ds),
      box,
      loadConfig(CallbacksConfig, { INGEST_CREDENTIAL_CACHE_TTL_MS: '0' }),
      new PinoLogger({ pinoHttp: { level: 'silent' } }),
    );
  });

  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
    await database?.drop();
  });

  it('opens the sealed token, preferring it to a plain one left in config', async () => {
    await insert('cred_sealed', {}, box.seal('sealed-token'));
    await insert('cred_both', { webhookVerifyToken: 'stale-plain' }, box.seal('sealed-wins'));
    expect((await credentials.load('cred_sealed'))?.verifyToken).toBe('sealed-token');
    expect((await credentials.load('cred_both'))?.verifyToken).toBe('sealed-wins');
  });

  it('falls back to config.webhookVerifyToken while the column is empty, and has none without either', async () => {
    await insert('cred_legacy', { webhookVerifyToken: 'legacy-token' }, null);
    await insert('cred_none', {}, null);
    expect((await credentials.load('cred_legacy'))?.verifyToken).toBe('legacy-token');
    expect((await credentials.load('cred_none'))?.verifyToken).toBeUndefined();
  });

  it('has no token when the sealed one cannot be opened (another key)', async () => {
    const otherBox = new SecretBox([{ id: 'retired', key: randomBytes(32) }]);
    await insert('cred_foreign', { webhookVerifyToken: 'not-used' }, otherBox.seal('unreadable'));
    expect((await credentials.load('cred_foreign'))?.verifyToken).toBeUndefined();
  });
});
