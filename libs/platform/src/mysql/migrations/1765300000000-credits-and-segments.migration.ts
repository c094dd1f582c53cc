import type { MigrationInterface, QueryRunner } from 'typeorm';

/*
 * Tenant credits and SMS segments.
 *
 * messages: `segments` (SMS parts of the rendered text, 1 for other channels, 0 until claimed),
 * `encoding` ('gsm7' | 'ucs2' for SMS, '' otherwise or until claimed) and `charge` (credits the
 * message holds reserved and not refunded). All three are fixed width and written by the claim's
 * UPDATE, so the row keeps its length (see 1764900000000-messages-fixed-width).
 *
 * runs: `pause_reason` (CREDITS_EXHAUSTED | QUOTA_EXHAUSTED when a sender paused the run, NULL
 * otherwise), `segments` (segments of the run's messages handed to the provider) and `charged`
 * (credits currently held by the run's messages). Senders change them like the other run counters:
 * signed deltas in `run_counter_deltas` (`segments`, `charged`), folded into `runs`.
 *
 * credit_accounts: a tenant's balance per channel and its price (credits per message, per segment for
 * SMS); a NULL price means the tenant is not metered on that channel. credit_quotas: message caps per
 * UTC day and month across channels; credit_quota_usage counts messages reserved per period
 * ('D2026-11-28', 'M2026-11'). credit_ledger is append-only (never updated or deleted): every change
 * of a balance writes one row in the same transaction, so SUM(amount) equals the balance.
 * uq_credit_ledger_reference makes a top-up with a reference idempotent and a reservation unique per
 * claim token; NULL references never collide.
 *
 * ALTER TABLE messages / runs adds columns at the end (instant on MariaDB 10.11 and MySQL 8).
 */
const TABLE_OPTIONS = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci';
const CHANNELS = "'whatsapp', 'sms', 'email'";
const NEW_TABLES = ['credit_ledger', 'credit_quota_usage', 'credit_quotas', 'credit_accounts'] as const;

export class CreditsAndSegments1765300000000 implements MigrationInterface {
  name = 'CreditsAndSegments1765300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE \`messages\`
         ADD COLUMN \`segments\` SMALLINT UNSIGNED NOT NULL DEFAULT 0,
         ADD COLUMN \`encoding\` CHAR(4) CHARACTER SET ascii COLLATE ascii_bin NOT NULL DEFAULT '',
         ADD COLUMN \`charge\` BIGINT UNSIGNED NOT NULL DEFAULT 0`,
    );
    await queryRunner.query(
      `ALTER TABLE \`runs\`
         ADD COLUMN \`pause_reason\` VARCHAR(32) NULL,
         ADD COLUMN \`segments\` BIGINT UNSIGNED NOT NULL DEFAULT 0,
         ADD COLUMN \`charged\` BIGINT UNSIGNED NOT NULL DEFAULT 0`,
    );
    await queryRunner.query(
      `ALTER TABLE \`run_counter_deltas\`
         ADD COLUMN \`segments\` INT NOT NULL DEFAULT 0,
         ADD COLUMN \`charged\` BIGINT NOT NULL DEFAULT 0`,
    );
    await queryRunner.query(`
      CREATE TABLE \`credit_accounts\` (
        \`tenant_id\` VARCHAR(64) NOT NULL,
        \`channel\` VARCHAR(16) NOT NULL,
        \`balance\` BIGINT NOT NULL DEFAULT 0,
        \`price\` BIGINT UNSIGNED NULL,
        \`created_at\` DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3)),
        \`updated_at\` DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3)),
        PRIMARY KEY (\`tenant_id\`, \`channel\`),
        CONSTRAINT \`chk_credit_accounts_channel\` CHECK (\`channel\` IN (${CHANNELS})),
        CONSTRAINT \`chk_credit_accounts_balance\` CHECK (\`balance\` >= 0)
      ) ${TABLE_OPTIONS}
    `);
    await queryRunner.query(`
      CREATE TABLE \`credit_quotas\` (
        \`tenant_id\` VARCHAR(64) NOT NULL,
        \`daily_limit\` BIGINT UNSIGNED NULL,
        \`monthly_limit\` BIGINT UNSIGNED NULL,
        \`updated_at\` DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3)),
        PRIMARY KEY (\`tenant_id\`)
      ) ${TABLE_OPTIONS}
    `);
    await queryRunner.query(`
      CREATE TABLE \`credit_quota_usage\` (
        \`tenant_id\` VARCHAR(64) NOT NULL,
        \`period\` VARCHAR(12) NOT NULL,
        \`used\` BIGINT UNSIGNED NOT NULL DEFAULT 0,
        PRIMARY KEY (\`tenant_id\`, \`period\`)
      ) ${TABLE_OPTIONS}
    `);
    await queryRunner.query(`
      CREATE TABLE \`credit_ledger\` (
        \`id\` BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
        \`tenant_id\` VARCHAR(64) NOT NULL,
        \`channel\` VARCHAR(16) NOT NULL,
        \`kind\` VARCHAR(16) NOT NULL,
        \`amount\` BIGINT NOT NULL,
        \`balance_after\` BIGINT NOT NULL,
        \`messages\` INT UNSIGNED NOT NULL DEFAULT 0,
        \`units\` INT UNSIGNED NOT NULL DEFAULT 0,
        \`run_id\` BIGINT UNSIGNED NULL,
        \`reference\` VARCHAR(128) NULL,
        \`actor\` VARCHAR(128) NULL,
        \`created_at\` DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3)),
        PRIMARY KEY (\`id\`),
        KEY \`idx_credit_ledger_account\` (\`tenant_id\`, \`channel\`, \`id\`),
        UNIQUE KEY \`uq_credit_ledger_reference\` (\`tenant_id\`, \`channel\`, \`kind\`, \`reference\`),
        CONSTRAINT \`chk_credit_ledger_channel\` CHECK (\`channel\` IN (${CHANNELS})),
        CONSTRAINT \`chk_credit_ledger_kind\` CHECK (\`kind\` IN ('TOP_UP', 'RESERVE', 'REFUND', 'ADJUST'))
      ) ${TABLE_OPTIONS}
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of NEW_TABLES) await queryRunner.query(`DROP TABLE \`${table}\``);
    await queryRunner.query('ALTER TABLE `run_counter_deltas` DROP COLUMN `segments`, DROP COLUMN `charged`');
    await queryRunner.query(
      'ALTER TABLE `runs` DROP COLUMN `pause_reason`, DROP COLUMN `segments`, DROP COLUMN `charged`',
    );
    await queryRunner.query(
      'ALTER TABLE `messages` DROP COLUMN `segments`, DROP COLUMN `encoding`, DROP COLUMN `charge`',
    );
  }
}
