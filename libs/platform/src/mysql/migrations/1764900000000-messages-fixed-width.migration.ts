import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The value of a message time that has not happened yet (NOT NULL columns; read back as NULL). */
const NEVER = `'1970-01-01 00:00:00.000'`;
const TIMES = ['claimed_at', 'sent_at', 'delivered_at', 'read_at', 'failed_at'] as const;

/*
 * Message rows that keep their length for life, so that a claim, a record and a callback rewrite
 * their row in place. Rows are appended in id order and fill their pages; an update that lengthened
 * a row (a NULL time or claim token set, a longer state, a provider id) made InnoDB move it and
 * reorganize or split its page, about 1-1.5 KB of redo log per message and update instead of
 * 0.3-0.5 KB (`npm run bench -- --only row-writes`). So:
 * - `state` is CHAR(9) ASCII (its longest value, DELIVERED), `claim_token` CHAR(36) ASCII, '' when
 *   unclaimed;
 * - the times are NOT NULL, 1970-01-01 (NEVER) until they happen; repositories read that as NULL;
 * - the provider's id of a message moves to `message_provider_ids`, written once with the record
 *   (or with the callback that first names it), and looked up there by callbacks.
 * Rebuilds `messages`: on a large table, run it in a maintenance window.
 */
export class MessagesFixedWidth1764900000000 implements MigrationInterface {
  name = 'MessagesFixedWidth1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE \`message_provider_ids\` (
        \`message_id\` BIGINT UNSIGNED NOT NULL,
        \`provider_message_id\` VARCHAR(256) NOT NULL,
        PRIMARY KEY (\`message_id\`),
        KEY \`idx_message_provider_ids_provider\` (\`provider_message_id\`)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
    `);
    await queryRunner.query(
      `INSERT INTO \`message_provider_ids\` (\`message_id\`, \`provider_message_id\`)
       SELECT \`id\`, \`provider_message_id\` FROM \`messages\` WHERE \`provider_message_id\` IS NOT NULL`,
    );
    await queryRunner.query(
      `UPDATE \`messages\` SET \`claim_token\` = COALESCE(\`claim_token\`, ''),
         ${TIMES.map((t) => `\`${t}\` = COALESCE(\`${t}\`, ${NEVER})`).join(', ')}`,
    );
    await queryRunner.query(
      `ALTER TABLE \`messages\`
         DROP INDEX \`idx_messages_provider_message\`,
         DROP COLUMN \`provider_message_id\`,
         MODIFY \`state\` CHAR(9) CHARACTER SET ascii COLLATE ascii_general_ci NOT NULL DEFAULT 'PENDING',
         MODIFY \`claim_token\` CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL DEFAULT '',
         ${TIMES.map((t) => `MODIFY \`${t}\` DATETIME(3) NOT NULL DEFAULT ${NEVER}`).join(',\n         ')}`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE \`messages\`
         ADD COLUMN \`provider_message_id\` VARCHAR(256) NULL AFTER \`attempts\`,
         MODIFY \`state\` VARCHAR(16) NOT NULL DEFAULT 'PENDING',
         MODIFY \`claim_token\` CHAR(36) NULL,
         ${TIMES.map((t) => `MODIFY \`${t}\` DATETIME(3) NULL`).join(',\n         ')}`,
    );
    await queryRunner.query(
      `UPDATE \`messages\` SET \`claim_token\` = NULLIF(\`claim_token\`, ''),
         ${TIMES.map((t) => `\`${t}\` = NULLIF(\`${t}\`, ${NEVER})`).join(', ')}`,
    );
    await queryRunner.query(
      `UPDATE \`messages\` m JOIN \`message_provider_ids\` p ON p.\`message_id\` = m.\`id\`
          SET m.\`provider_message_id\` = p.\`provider_message_id\``,
    );
    await queryRunner.query(
      'CREATE INDEX `idx_messages_provider_message` ON `messages` (`provider_message_id`)',
    );
    await queryRunner.query('DROP TABLE `message_provider_ids`');
  }
}
