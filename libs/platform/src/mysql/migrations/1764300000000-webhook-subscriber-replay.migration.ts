import type { MigrationInterface, QueryRunner } from 'typeorm';

/*
 * Subscriber webhooks (webhook-dispatcher):
 * - subscribers.state gains REPLAYING: a resurrected subscriber gets what it missed, in order, before
 *   new events (which are kept as MISSED meanwhile); it becomes ALIVE when the backlog is empty.
 * - secret and previous_secret hold SecretBox output (`v1:<keyId>:<iv>:<tag>:<ciphertext>`), longer
 *   than the plaintext `whsec_` secret, so they widen to 512.
 * - previous_secret_expires_at already exists; nothing else changes.
 * DROP CONSTRAINT ... ADD CONSTRAINT works on MariaDB 10.11 and MySQL 8.0.19+.
 */
export class WebhookSubscriberReplay1764300000000 implements MigrationInterface {
  name = 'WebhookSubscriberReplay1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE \`subscribers\`
         MODIFY \`secret\` VARCHAR(512) NOT NULL,
         MODIFY \`previous_secret\` VARCHAR(512) NULL`,
    );
    await queryRunner.query('ALTER TABLE `subscribers` DROP CONSTRAINT `chk_subscribers_state`');
    await queryRunner.query(
      `ALTER TABLE \`subscribers\` ADD CONSTRAINT \`chk_subscribers_state\`
         CHECK (\`state\` IN ('ALIVE', 'DEAD', 'DISABLED', 'REPLAYING'))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // A subscriber caught mid-replay goes back to DEAD: its MISSED deliveries are still kept.
    await queryRunner.query("UPDATE `subscribers` SET `state` = 'DEAD' WHERE `state` = 'REPLAYING'");
    await queryRunner.query('ALTER TABLE `subscribers` DROP CONSTRAINT `chk_subscribers_state`');
    await queryRunner.query(
      `ALTER TABLE \`subscribers\` ADD CONSTRAINT \`chk_subscribers_state\`
         CHECK (\`state\` IN ('ALIVE', 'DEAD', 'DISABLED'))`,
    );
    await queryRunner.query(
      `ALTER TABLE \`subscribers\`
         MODIFY \`secret\` VARCHAR(128) NOT NULL,
         MODIFY \`previous_secret\` VARCHAR(128) NULL`,
    );
  }
}
