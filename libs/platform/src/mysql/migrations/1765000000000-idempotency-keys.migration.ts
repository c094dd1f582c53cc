import type { MigrationInterface, QueryRunner } from 'typeorm';

/*
 * idempotency_keys: the `Idempotency-Key` of create requests (campaigns, credentials, API keys,
 * subscribers, single and bulk sends), one row per tenant, route and key, written by the scheduler and
 * the dispatcher (libs/platform http idempotency).
 * - `idem_key` is VARBINARY: keys compare byte for byte (case and trailing spaces count);
 * - `request_hash` is the SHA-256 (hex) of the request body as canonical JSON;
 * - `state` is IN_PROGRESS while the first request runs (`claim` names it: only it completes or
 *   releases the row), then COMPLETED with the answer's `status` and `response` (sealed with the
 *   SecretBox: a created API key's or subscriber's secret is in it);
 * - rows are deleted once `expires_at` (24 h after the request) has passed (idx_idempotency_keys_expires).
 */
export class IdempotencyKeys1765000000000 implements MigrationInterface {
  name = 'IdempotencyKeys1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE \`idempotency_keys\` (
        \`tenant_id\` VARCHAR(64) NOT NULL,
        \`route\` VARCHAR(100) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        \`idem_key\` VARBINARY(255) NOT NULL,
        \`request_hash\` CHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        \`state\` VARCHAR(11) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        \`claim\` CHAR(26) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
        \`status\` SMALLINT UNSIGNED NULL,
        \`response\` MEDIUMTEXT NULL,
        \`created_at\` DATETIME(3) NOT NULL,
        \`expires_at\` DATETIME(3) NOT NULL,
        PRIMARY KEY (\`tenant_id\`, \`route\`, \`idem_key\`),
        KEY \`idx_idempotency_keys_expires\` (\`expires_at\`),
        CONSTRAINT \`chk_idempotency_keys_state\` CHECK (\`state\` IN ('IN_PROGRESS', 'COMPLETED'))
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE `idempotency_keys`');
  }
}
