import type { MigrationInterface, QueryRunner } from 'typeorm';

/*
 * run_counter_deltas: the senders' changes to a run's counters, one row per transaction, written in
 * the same transaction as the message rows they count and folded into `runs` a moment later.
 * Measured: with every claim, record, finished batch and applied callback updating the one `runs`
 * row, those transactions queued on its lock (most active statements in a pipeline benchmark were
 * `UPDATE runs ... ` waiting), and each held it through its commit's log flush, which capped a whole
 * campaign at a few hundred messages/s. Inserting a row takes no shared lock. Deltas are signed.
 * Ids grow in commit order of causally related changes (a claim commits before its record is
 * written), so folding the oldest ids first never applies an effect before its cause.
 */
export class RunCounterDeltas1764400000000 implements MigrationInterface {
  name = 'RunCounterDeltas1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE \`run_counter_deltas\` (
        \`id\` BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
        \`run_id\` BIGINT UNSIGNED NOT NULL,
        \`pending\` INT NOT NULL DEFAULT 0,
        \`sending\` INT NOT NULL DEFAULT 0,
        \`sent\` INT NOT NULL DEFAULT 0,
        \`delivered\` INT NOT NULL DEFAULT 0,
        \`read_count\` INT NOT NULL DEFAULT 0,
        \`failed\` INT NOT NULL DEFAULT 0,
        \`unknown\` INT NOT NULL DEFAULT 0,
        \`skipped\` INT NOT NULL DEFAULT 0,
        \`batches_finished\` INT NOT NULL DEFAULT 0,
        \`created_at\` DATETIME(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3)),
        PRIMARY KEY (\`id\`)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE `run_counter_deltas`');
  }
}
