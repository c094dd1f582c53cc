import type { MigrationInterface, QueryRunner } from 'typeorm';

const NEVER = `'1970-01-01 00:00:00.000'`;

/*
 * Status refresh: asking providers what became of UNKNOWN messages and of SENT ones that never got a
 * callback (see docs/architecture.md, "Status refresh").
 *
 * status_refresh_requests: an operator's request to refresh one run now. The sender serves open
 * requests first (`finished_at` NEVER, `idx_status_refresh_requests_open`), walking the run's UNKNOWN
 * rows and then its SENT rows in id order through idx_messages_run_state (`cursor_state`, `cursor_id`:
 * the last message served) and adding what it settled;
 * the scheduler reads the latest request of a run (`idx_status_refresh_requests_run`).
 *
 * status_refresh_cursors: how far the periodic refresh has walked each state's candidates in
 * (claimed_at, id) order, so that SENT rows without a callback are asked about once and UNKNOWN rows
 * are visited in turn (the walk wraps around once it reaches the newest candidate).
 */
export class StatusRefresh1765350000000 implements MigrationInterface {
  name = 'StatusRefresh1765350000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE \`status_refresh_requests\` (
        \`id\` BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
        \`run_id\` BIGINT UNSIGNED NOT NULL,
        \`tenant_id\` VARCHAR(64) NOT NULL,
        \`requested_by\` VARCHAR(128) NULL,
        \`requested_at\` DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3)),
        \`cursor_state\` CHAR(9) CHARACTER SET ascii COLLATE ascii_general_ci NOT NULL DEFAULT 'UNKNOWN',
        \`cursor_id\` BIGINT UNSIGNED NOT NULL DEFAULT 0,
        \`finished_at\` DATETIME(3) NOT NULL DEFAULT ${NEVER},
        \`settled_sent\` INT UNSIGNED NOT NULL DEFAULT 0,
        \`settled_delivered\` INT UNSIGNED NOT NULL DEFAULT 0,
        \`settled_read\` INT UNSIGNED NOT NULL DEFAULT 0,
        \`settled_failed\` INT UNSIGNED NOT NULL DEFAULT 0,
        \`settled_not_received\` INT UNSIGNED NOT NULL DEFAULT 0,
        \`unresolved\` INT UNSIGNED NOT NULL DEFAULT 0,
        PRIMARY KEY (\`id\`),
        KEY \`idx_status_refresh_requests_open\` (\`finished_at\`, \`id\`),
        KEY \`idx_status_refresh_requests_run\` (\`run_id\`, \`id\`)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
    `);
    await queryRunner.query(`
      CREATE TABLE \`status_refresh_cursors\` (
        \`state\` CHAR(9) CHARACTER SET ascii COLLATE ascii_general_ci NOT NULL,
        \`claimed_at\` DATETIME(3) NOT NULL DEFAULT ${NEVER},
        \`message_id\` BIGINT UNSIGNED NOT NULL DEFAULT 0,
        \`updated_at\` DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3)),
        PRIMARY KEY (\`state\`)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE `status_refresh_cursors`');
    await queryRunner.query('DROP TABLE `status_refresh_requests`');
  }
}
