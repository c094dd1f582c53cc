import type { MigrationInterface, QueryRunner } from 'typeorm';

/*
 * Dead letters kept for operators: every entry of `ums.dead-letters.v1` (a poison or refused Kafka
 * message, with its bytes and origin) stored by the campaign-scheduler, so that the operator API and
 * CLI can list, inspect and replay them. One row per (consumer group, source topic, partition, offset):
 * a dead letter consumed again inserts nothing. `replayed_at`/`replays` record replays to the source topic.
 */
export class DeadLetters1764600000000 implements MigrationInterface {
  name = 'DeadLetters1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE \`dead_letters\` (
        \`id\` BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
        \`consumer_group\` VARCHAR(255) NOT NULL,
        \`source_topic\` VARCHAR(255) NOT NULL,
        \`source_partition\` INT UNSIGNED NOT NULL,
        \`source_offset\` VARCHAR(20) NOT NULL,
        \`message_key\` VARCHAR(1024) NULL,
        \`message_value\` MEDIUMTEXT NULL,
        \`value_encoding\` VARCHAR(8) NOT NULL,
        \`headers\` JSON NOT NULL,
        \`error_code\` VARCHAR(64) NOT NULL,
        \`reason\` TEXT NOT NULL,
        \`attempts\` INT UNSIGNED NOT NULL,
        \`failed_at\` DATETIME(3) NULL,
        \`replays\` INT UNSIGNED NOT NULL DEFAULT 0,
        \`replayed_at\` DATETIME(3) NULL,
        \`created_at\` DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3)),
        PRIMARY KEY (\`id\`),
        UNIQUE KEY \`uq_dead_letters_source\` (\`consumer_group\`, \`source_topic\`, \`source_partition\`, \`source_offset\`),
        KEY \`idx_dead_letters_source_topic\` (\`source_topic\`, \`id\`),
        KEY \`idx_dead_letters_error_code\` (\`error_code\`, \`id\`),
        CONSTRAINT \`chk_dead_letters_value_encoding\` CHECK (\`value_encoding\` IN ('utf8', 'base64'))
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE `dead_letters`');
  }
}
