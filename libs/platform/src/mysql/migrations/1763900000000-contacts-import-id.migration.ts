import type { MigrationInterface, QueryRunner } from 'typeorm';

/*
 * contacts.import_id: the audience import that added the contact. With contacts.line_no it lets an
 * import tell, for an address INSERT IGNORE skipped, whether the row that holds it came from this
 * import ("duplicate of line 12") or from an earlier one ("already in the audience"), by reading the
 * existing rows through the (campaign_id, address) unique key. Nullable and last, so MariaDB 10.11
 * and MySQL 8 add it instantly without rebuilding a large table; no index (only read by that key).
 */
export class ContactsImportId1763900000000 implements MigrationInterface {
  name = 'ContactsImportId1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE `contacts` ADD COLUMN `import_id` BIGINT UNSIGNED NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE `contacts` DROP COLUMN `import_id`');
  }
}
