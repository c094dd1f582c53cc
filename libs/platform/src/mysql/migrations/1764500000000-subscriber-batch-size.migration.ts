import type { MigrationInterface, QueryRunner } from 'typeorm';

/*
 * Batched webhook deliveries: a subscriber may take up to `max_events_per_request` events in one
 * signed POST (a `webhook.batch` body). 1, the default, keeps the one-event-per-request contract every
 * existing subscriber has.
 */
export class SubscriberBatchSize1764500000000 implements MigrationInterface {
  name = 'SubscriberBatchSize1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE \`subscribers\`
         ADD COLUMN \`max_events_per_request\` SMALLINT UNSIGNED NOT NULL DEFAULT 1 AFTER \`is_internal\``,
    );
    await queryRunner.query(
      `ALTER TABLE \`subscribers\` ADD CONSTRAINT \`chk_subscribers_max_events_per_request\`
         CHECK (\`max_events_per_request\` BETWEEN 1 AND 500)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE `subscribers` DROP CONSTRAINT `chk_subscribers_max_events_per_request`',
    );
    await queryRunner.query('ALTER TABLE `subscribers` DROP COLUMN `max_events_per_request`');
  }
}
