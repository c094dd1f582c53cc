import type { MigrationInterface, QueryRunner } from 'typeorm';

/*
 * A campaign's priority, 1 (the default: every existing campaign) to 10. It weights the campaign's
 * share of its credential in the senders' fair-share rate limiter (a campaign of priority 2 gets twice
 * the share of one of priority 1 while both send) and orders due runs (higher first, then fire time).
 * The expander carries it on each message batch, so the senders never read it from the database.
 */
export class CampaignPriority1765320000000 implements MigrationInterface {
  name = 'CampaignPriority1765320000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE \`campaigns\`
        ADD COLUMN \`priority\` TINYINT UNSIGNED NOT NULL DEFAULT 1,
        ADD CONSTRAINT \`chk_campaigns_priority\` CHECK (\`priority\` BETWEEN 1 AND 10)
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE `campaigns` DROP CONSTRAINT `chk_campaigns_priority`');
    await queryRunner.query('ALTER TABLE `campaigns` DROP COLUMN `priority`');
  }
}
