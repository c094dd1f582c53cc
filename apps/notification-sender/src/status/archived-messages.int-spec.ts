import { createDataSource, NEVER_SQL, runPendingMigrations } from '@ums/platform';
import { createTestDatabase } from '@ums/testing';
import type { DataSource } from 'typeorm';
import { ArchivedMessagesRepository } from './archived-messages.repository';

jest.setTimeout(60_000);

describe('late status reports of archived messages (real MariaDB)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('archived_messages');
    ds = createDataSource({ ...db.settings, poolSize: 2 });
    await ds.initialize();
    await runPendingMigrations(ds);
    // Two archived messages of cred-1 (one named by the provider) and one hot message with a provider id.
    for (const [table, id] of [
      ['messages_archive', 101],
      ['messages_archive', 102],
      ['messages', 103],
    ] as const) {
      await ds.query(
        `INSERT INTO ${table} (id, campaign_id, tenant_id, channel, credential_id, recipient, lane, state, delivered_at)
         VALUES (?, 'req-1', 't1', 'sms', 'cred-1', '+15550000001', 'priority', 'DELIVERED', ${NEVER_SQL})`,
        [id],
      );
    }
    await ds.query(
      `INSERT INTO message_provider_ids_archive (message_id, provider_message_id) VALUES (102, 'prov-102')`,
    );
    await ds.query(
      `INSERT INTO message_provider_ids (message_id, provider_message_id) VALUES (103, 'prov-103')`,
    );
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('names the reports of archived messages of their own credential, by our id or the provider id', async () => {
    const archived = await new ArchivedMessagesRepository(ds).archivedOf([
      { index: 0, messageId: '101', providerMessageId: 'x', credentialId: 'cred-1' },
      { index: 1, messageId: undefined, providerMessageId: 'prov-102', credentialId: 'cred-1' },
      { index: 2, messageId: '101', providerMessageId: 'x', credentialId: 'another-credential' },
      { index: 3, messageId: undefined, providerMessageId: 'prov-102', credentialId: 'another-credential' },
      { index: 4, messageId: '999999', providerMessageId: 'x', credentialId: 'cred-1' },
      { index: 5, messageId: undefined, providerMessageId: 'prov-103', credentialId: 'cred-1' },
      { index: 6, messageId: '103', providerMessageId: 'x', credentialId: 'cred-1' },
    ]);
    expect([...archived].sort()).toEqual([0, 1]);
    await expect(new ArchivedMessagesRepository(ds).archivedOf([])).resolves.toEqual(new Set());
  });
});
