import type { MigrationInterface, QueryRunner } from 'typeorm';

/*
 * The tenant of each dead letter, so that a tenant's principal sees only its own entries: set by the
 * campaign-scheduler's dead-letters consumer from the original message (the payload's tenantId, or the
 * key of a send request), NULL when the source topic carries no tenant or the payload cannot be read.
 * NULL entries, and every entry stored before this migration, are visible to operators only.
 * `idx_dead_letters_tenant` (tenant_id, id) serves a tenant's keyset pages (newest first, `id < before`)
 * and a tenant's replay by filter (oldest first) as one index range. Built online (INPLACE, LOCK=NONE).
 */
export class DeadLettersTenant1764840000000 implements MigrationInterface {
  name = 'DeadLettersTenant1764840000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE \`dead_letters\`
         ADD COLUMN \`tenant_id\` VARCHAR(64) NULL,
         ADD INDEX \`idx_dead_letters_tenant\` (\`tenant_id\`, \`id\`),
         ALGORITHM=INPLACE, LOCK=NONE`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE \`dead_letters\`
         DROP INDEX \`idx_dead_letters_tenant\`,
         DROP COLUMN \`tenant_id\`,
         ALGORITHM=INPLACE, LOCK=NONE`,
    );
  }
}
