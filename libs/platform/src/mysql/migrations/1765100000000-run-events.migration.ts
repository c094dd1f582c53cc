import type { MigrationInterface, QueryRunner } from 'typeorm';

/*
 * Run lifecycle events: one row per state change of a run (scheduled, started, paused, resumed,
 * stopped, completed, failed, retried), written in the transaction that changes the run's state, with
 * the run's counters at that moment. It is the outbox of `ums.campaign.lifecycle.v1`: the
 * campaign-scheduler's relay publishes rows with no `published_at` in id order and then stamps them,
 * so a transition is announced once it is committed, whichever service committed it. The rows stay as
 * the run's history (the API's run events, `ums campaigns show --watch`). The tenant is the campaign's,
 * read when publishing: the writers lock no campaign row. `idx_run_events_unpublished` finds the
 * relay's backlog as one index range; `idx_run_events_run` serves a run's history in order.
 */
export class RunEvents1765100000000 implements MigrationInterface {
  name = 'RunEvents1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE \`run_events\` (
        \`id\` BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
        \`run_id\` BIGINT UNSIGNED NOT NULL,
        \`campaign_id\` VARCHAR(64) NOT NULL,
        \`event\` VARCHAR(16) NOT NULL,
        \`state\` VARCHAR(16) NOT NULL,
        \`previous_state\` VARCHAR(16) NOT NULL,
        \`reason\` VARCHAR(512) NULL,
        \`total\` BIGINT UNSIGNED NOT NULL,
        \`pending\` BIGINT UNSIGNED NOT NULL,
        \`sending\` BIGINT UNSIGNED NOT NULL,
        \`sent\` BIGINT UNSIGNED NOT NULL,
        \`delivered\` BIGINT UNSIGNED NOT NULL,
        \`read_count\` BIGINT UNSIGNED NOT NULL,
        \`failed\` BIGINT UNSIGNED NOT NULL,
        \`unknown\` BIGINT UNSIGNED NOT NULL,
        \`skipped\` BIGINT UNSIGNED NOT NULL,
        \`occurred_at\` DATETIME(3) NOT NULL,
        \`published_at\` DATETIME(3) NULL,
        PRIMARY KEY (\`id\`),
        KEY \`idx_run_events_unpublished\` (\`published_at\`, \`id\`),
        KEY \`idx_run_events_run\` (\`run_id\`, \`id\`),
        CONSTRAINT \`chk_run_events_event\` CHECK (
          \`event\` IN ('scheduled', 'started', 'paused', 'resumed', 'stopped', 'completed', 'failed', 'retried')
        )
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE `run_events`');
  }
}
