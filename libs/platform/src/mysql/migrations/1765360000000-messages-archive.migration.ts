import type { MigrationInterface, QueryRunner } from 'typeorm';

interface IndexNameRow {
  readonly index_name: string;
}

/*
 * The archive of messages past their retention (MESSAGE_RETENTION_MS, the campaign-scheduler's
 * archiver): `messages` keeps the messages in flight and those of recently finished runs; the
 * archiver moves older ones here window by window (copy, then delete, in one transaction).
 *
 * `messages_archive` is `messages` column for column (CREATE TABLE ... LIKE, so the columns added by
 * earlier migrations come along), then `archived_at`. Every later migration that changes `messages`
 * must change `messages_archive` alike (migrations.int-spec.ts compares the two). It keeps the primary
 * key on id (no AUTO_INCREMENT: ids come from `messages`) and only the indexes its readers need:
 * (run_id, id) for a run's listing and CSV export in id order, (tenant_id, idempotency_key) for a
 * single send's lookup by request id (not unique: a key may be used again once its first message is
 * archived), archived_at for the archive's own retention. The hot table's unique keys are dropped so
 * that a copy can never be refused by one.
 *
 * `message_provider_ids_archive` keeps the provider ids of archived messages: the export shows them,
 * and a late callback naming only the provider id is recognised as an archived message's (counted
 * and dropped) rather than an unknown one (dead-lettered).
 */
export class MessagesArchive1765360000000 implements MigrationInterface {
  name = 'MessagesArchive1765360000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE TABLE `messages_archive` LIKE `messages`');
    const copied = (await queryRunner.query(
      `SELECT DISTINCT INDEX_NAME AS index_name FROM information_schema.STATISTICS
        WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'messages_archive' AND INDEX_NAME <> 'PRIMARY'
        ORDER BY INDEX_NAME`,
    )) as IndexNameRow[];
    await queryRunner.query(
      `ALTER TABLE \`messages_archive\`
         ${copied.map((row) => `DROP INDEX \`${row.index_name}\`, `).join('')}
         MODIFY \`id\` BIGINT UNSIGNED NOT NULL,
         ADD COLUMN \`archived_at\` DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3)),
         ADD KEY \`idx_messages_archive_run\` (\`run_id\`, \`id\`),
         ADD KEY \`idx_messages_archive_tenant_idempotency\` (\`tenant_id\`, \`idempotency_key\`),
         ADD KEY \`idx_messages_archive_archived_at\` (\`archived_at\`)`,
    );
    await queryRunner.query(`
      CREATE TABLE \`message_provider_ids_archive\` (
        \`message_id\` BIGINT UNSIGNED NOT NULL,
        \`provider_message_id\` VARCHAR(256) NOT NULL,
        PRIMARY KEY (\`message_id\`),
        KEY \`idx_message_provider_ids_archive_provider\` (\`provider_message_id\`)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Archived rows go back to the hot tables first. Only a single send whose idempotency key was used
    // again after it was archived stays out (the hot table keeps one message per key): it is dropped.
    const columns = (await queryRunner.query(
      `SELECT COLUMN_NAME AS name FROM information_schema.COLUMNS
        WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'messages' ORDER BY ORDINAL_POSITION`,
    )) as { name: string }[];
    const list = columns.map((column) => `\`${column.name}\``).join(', ');
    await queryRunner.query(
      `INSERT IGNORE INTO \`messages\` (${list}) SELECT ${list} FROM \`messages_archive\``,
    );
    await queryRunner.query(
      `INSERT IGNORE INTO \`message_provider_ids\` (\`message_id\`, \`provider_message_id\`)
       SELECT \`message_id\`, \`provider_message_id\` FROM \`message_provider_ids_archive\``,
    );
    await queryRunner.query('DROP TABLE `message_provider_ids_archive`');
    await queryRunner.query('DROP TABLE `messages_archive`');
  }
}
