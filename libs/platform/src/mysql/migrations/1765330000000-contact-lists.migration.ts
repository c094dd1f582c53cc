import type { MigrationInterface, QueryRunner } from 'typeorm';

const TABLE_OPTIONS = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci';
const CREATED_AT = '`created_at` DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3))';
const UPDATED_AT = '`updated_at` DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3))';

/*
 * Reusable contact lists. contact_lists: a tenant's list of one channel (addresses are validated and
 * normalized for it, national phone numbers with default_country); member_count is recounted when an
 * import finishes. contact_list_members: the members, deduped by (list_id, address) as contacts are
 * per campaign; variables are the file's other columns (the template's variables and the attributes
 * segments filter on); (list_id, id) is the keyset of member pages and of copying a list into a
 * campaign's contacts. contact_list_imports and contact_list_rejects: each CSV or URL import into a
 * list with its progress and rejected lines, as audience_imports and audience_rejects are for a
 * campaign (those keep their NOT NULL campaign key). Members and rejects are bulk-written and have no
 * foreign key (see the initial schema); imports reference their list.
 *
 * audience_imports.source gains 'list': copying a list into a campaign's audience is recorded as one
 * of the campaign's audience imports, so its counts and reports read as any other import's. down()
 * relabels such imports 'inline' (their rows were given as data, not read from a file).
 */
export class ContactLists1765330000000 implements MigrationInterface {
  name = 'ContactLists1765330000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE \`contact_lists\` (
        \`id\` VARCHAR(64) NOT NULL,
        \`tenant_id\` VARCHAR(64) NOT NULL,
        \`name\` VARCHAR(255) NOT NULL,
        \`channel\` VARCHAR(16) NOT NULL,
        \`default_country\` CHAR(2) NULL,
        \`member_count\` BIGINT UNSIGNED NOT NULL DEFAULT 0,
        ${CREATED_AT},
        ${UPDATED_AT},
        PRIMARY KEY (\`id\`),
        KEY \`idx_contact_lists_tenant\` (\`tenant_id\`, \`id\`),
        CONSTRAINT \`chk_contact_lists_channel\` CHECK (\`channel\` IN ('whatsapp', 'sms', 'email'))
      ) ${TABLE_OPTIONS}
    `);
    await queryRunner.query(`
      CREATE TABLE \`contact_list_members\` (
        \`id\` BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
        \`list_id\` VARCHAR(64) NOT NULL,
        \`address\` VARCHAR(320) NOT NULL,
        \`variables\` JSON NULL,
        \`line_no\` BIGINT UNSIGNED NULL,
        \`import_id\` BIGINT UNSIGNED NULL,
        ${CREATED_AT},
        PRIMARY KEY (\`id\`),
        UNIQUE KEY \`uq_contact_list_members_list_address\` (\`list_id\`, \`address\`),
        KEY \`idx_contact_list_members_list_id\` (\`list_id\`, \`id\`)
      ) ${TABLE_OPTIONS}
    `);
    await queryRunner.query(`
      CREATE TABLE \`contact_list_imports\` (
        \`id\` BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
        \`list_id\` VARCHAR(64) NOT NULL,
        \`source\` VARCHAR(16) NOT NULL,
        \`state\` VARCHAR(16) NOT NULL DEFAULT 'PENDING',
        \`rows_read\` BIGINT UNSIGNED NOT NULL DEFAULT 0,
        \`rows_accepted\` BIGINT UNSIGNED NOT NULL DEFAULT 0,
        \`rows_rejected\` BIGINT UNSIGNED NOT NULL DEFAULT 0,
        \`rows_duplicate\` BIGINT UNSIGNED NOT NULL DEFAULT 0,
        \`error\` TEXT NULL,
        \`started_at\` DATETIME(3) NULL,
        \`finished_at\` DATETIME(3) NULL,
        ${CREATED_AT},
        ${UPDATED_AT},
        PRIMARY KEY (\`id\`),
        KEY \`idx_contact_list_imports_list\` (\`list_id\`, \`id\`),
        KEY \`idx_contact_list_imports_state\` (\`state\`, \`updated_at\`),
        CONSTRAINT \`fk_contact_list_imports_list\` FOREIGN KEY (\`list_id\`)
          REFERENCES \`contact_lists\` (\`id\`) ON DELETE CASCADE ON UPDATE RESTRICT,
        CONSTRAINT \`chk_contact_list_imports_source\` CHECK (\`source\` IN ('csv', 'url')),
        CONSTRAINT \`chk_contact_list_imports_state\`
          CHECK (\`state\` IN ('PENDING', 'RUNNING', 'COMPLETED', 'FAILED'))
      ) ${TABLE_OPTIONS}
    `);
    await queryRunner.query(`
      CREATE TABLE \`contact_list_rejects\` (
        \`id\` BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
        \`import_id\` BIGINT UNSIGNED NOT NULL,
        \`line_no\` BIGINT UNSIGNED NOT NULL,
        \`reason\` VARCHAR(255) NOT NULL,
        \`raw\` VARCHAR(1024) NULL,
        PRIMARY KEY (\`id\`),
        KEY \`idx_contact_list_rejects_import_line\` (\`import_id\`, \`line_no\`)
      ) ${TABLE_OPTIONS}
    `);
    await this.audienceSources(queryRunner, "'csv', 'url', 'inline', 'request', 'list'");
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("UPDATE `audience_imports` SET `source` = 'inline' WHERE `source` = 'list'");
    await this.audienceSources(queryRunner, "'csv', 'url', 'inline', 'request'");
    await queryRunner.query('DROP TABLE `contact_list_rejects`');
    await queryRunner.query('DROP TABLE `contact_list_imports`');
    await queryRunner.query('DROP TABLE `contact_list_members`');
    await queryRunner.query('DROP TABLE `contact_lists`');
  }

  /** Replaces the CHECK on audience_imports.source (DROP CONSTRAINT: MariaDB 10.11 and MySQL 8.0.19+). */
  private async audienceSources(queryRunner: QueryRunner, values: string): Promise<void> {
    await queryRunner.query('ALTER TABLE `audience_imports` DROP CONSTRAINT `chk_audience_imports_source`');
    await queryRunner.query(
      `ALTER TABLE \`audience_imports\` ADD CONSTRAINT \`chk_audience_imports_source\` CHECK (\`source\` IN (${values}))`,
    );
  }
}
