import type { MigrationInterface, QueryRunner } from 'typeorm';

/*
 * Test sends: a campaign's content sent to a few given recipients on the priority lane before the
 * campaign starts (`POST /v1/campaigns/{id}/test-sends`).
 * - `test_sends` is one request: its tenant, campaign, who made it (`actor`, the caller's principal)
 *   and, when it named an Idempotency-Key, that key as `request_id` (unique per tenant and campaign:
 *   a retried request finds the first one and sends nothing more). `idx_test_sends_tenant_created`
 *   serves the per-tenant rate bound (test sends of the last minute) as one index range;
 *   `idx_test_sends_campaign` lists a campaign's test sends newest first.
 * - `test_send_messages` are its recipients in the request's order, each with the single-send
 *   message (`messages`, run_id NULL, lane priority) that carries it; the results are those rows.
 *   No foreign keys, as on the other message tables: the writer inserts both in one transaction.
 */
export class TestSends1765340000000 implements MigrationInterface {
  name = 'TestSends1765340000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE \`test_sends\` (
        \`id\` BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
        \`tenant_id\` VARCHAR(64) NOT NULL,
        \`campaign_id\` VARCHAR(64) NOT NULL,
        \`request_id\` VARCHAR(128) NULL,
        \`actor\` VARCHAR(128) NOT NULL,
        \`created_at\` DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3)),
        PRIMARY KEY (\`id\`),
        UNIQUE KEY \`uq_test_sends_request\` (\`tenant_id\`, \`campaign_id\`, \`request_id\`),
        KEY \`idx_test_sends_tenant_created\` (\`tenant_id\`, \`created_at\`),
        KEY \`idx_test_sends_campaign\` (\`campaign_id\`, \`id\`)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
    `);
    await queryRunner.query(`
      CREATE TABLE \`test_send_messages\` (
        \`test_send_id\` BIGINT UNSIGNED NOT NULL,
        \`position\` TINYINT UNSIGNED NOT NULL,
        \`recipient\` VARCHAR(320) NOT NULL,
        \`message_id\` BIGINT UNSIGNED NOT NULL,
        PRIMARY KEY (\`test_send_id\`, \`position\`)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE `test_send_messages`');
    await queryRunner.query('DROP TABLE `test_sends`');
  }
}
