import type { MigrationInterface, QueryRunner } from 'typeorm';

/*
 * What each credential's rate limiter did, per second: the AIMD rate the second ended at, the tokens
 * granted and the provider's answers (accepted, congested: 429 or its equivalent, 5xx, timeouts), and
 * how many AIMD decreases (congestion events) the second saw. Every notification-sender replica adds its
 * own counts to the second's row with one multi-row upsert per flush, so a row sums all replicas. The
 * operator console's run charts and credentials page read it; the scheduler's sweeper deletes rows past
 * their retention. The primary key serves a credential's series; `idx_credential_rate_seconds_at` the
 * retention deletes.
 */
export class CredentialRateSeconds1765200000000 implements MigrationInterface {
  name = 'CredentialRateSeconds1765200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE \`credential_rate_seconds\` (
        \`credential_id\` VARCHAR(64) NOT NULL,
        \`second_at\` DATETIME NOT NULL,
        \`tenant_id\` VARCHAR(64) NOT NULL,
        \`rate\` DOUBLE NOT NULL,
        \`granted\` INT UNSIGNED NOT NULL DEFAULT 0,
        \`accepted\` INT UNSIGNED NOT NULL DEFAULT 0,
        \`congested\` INT UNSIGNED NOT NULL DEFAULT 0,
        \`errors_5xx\` INT UNSIGNED NOT NULL DEFAULT 0,
        \`timeouts\` INT UNSIGNED NOT NULL DEFAULT 0,
        \`decreases\` INT UNSIGNED NOT NULL DEFAULT 0,
        PRIMARY KEY (\`credential_id\`, \`second_at\`),
        KEY \`idx_credential_rate_seconds_at\` (\`second_at\`)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE `credential_rate_seconds`');
  }
}
