import type { MigrationInterface, QueryRunner } from 'typeorm';

const TABLE_OPTIONS = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci';

/*
 * api_keys: the tenants' API keys. Only the SHA-256 of a key is stored (`secret_hash`, hex); the key
 * itself is shown once, when it is created. A key is never deleted, only revoked, so the audit trail
 * can always name it. `scopes` is a comma-separated list of Scope values.
 *
 * audit_events: one row per state-changing API call (and per refused one whose caller is known):
 * who (principal kind and id), for which tenant, what (action and target), the result and when.
 * Append-only; listed newest first per tenant or across tenants.
 */
export class ApiKeysAndAudit1764800000000 implements MigrationInterface {
  name = 'ApiKeysAndAudit1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE \`api_keys\` (
        \`id\` VARCHAR(40) NOT NULL,
        \`tenant_id\` VARCHAR(64) NOT NULL,
        \`name\` VARCHAR(100) NOT NULL,
        \`scopes\` VARCHAR(500) NOT NULL,
        \`secret_hash\` CHAR(64) NOT NULL,
        \`created_by\` VARCHAR(100) NOT NULL,
        \`created_at\` DATETIME(3) NOT NULL,
        \`expires_at\` DATETIME(3) NULL,
        \`revoked_at\` DATETIME(3) NULL,
        PRIMARY KEY (\`id\`),
        KEY \`idx_api_keys_tenant\` (\`tenant_id\`, \`id\`)
      ) ${TABLE_OPTIONS}
    `);
    await queryRunner.query(`
      CREATE TABLE \`audit_events\` (
        \`id\` BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
        \`occurred_at\` DATETIME(3) NOT NULL,
        \`principal_kind\` VARCHAR(16) NOT NULL,
        \`principal_id\` VARCHAR(200) NOT NULL,
        \`tenant_id\` VARCHAR(64) NULL,
        \`service\` VARCHAR(40) NOT NULL,
        \`action\` VARCHAR(200) NOT NULL,
        \`target\` VARCHAR(500) NULL,
        \`status\` SMALLINT UNSIGNED NOT NULL,
        \`result\` VARCHAR(64) NOT NULL,
        \`request_id\` VARCHAR(64) NULL,
        PRIMARY KEY (\`id\`),
        KEY \`idx_audit_events_tenant\` (\`tenant_id\`, \`id\`)
      ) ${TABLE_OPTIONS}
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE `audit_events`');
    await queryRunner.query('DROP TABLE `api_keys`');
  }
}
