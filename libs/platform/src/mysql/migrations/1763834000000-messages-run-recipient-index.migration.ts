import type { MigrationInterface, QueryRunner } from 'typeorm';

/*
 * Index for the per-run message listing filtered by recipient (GET .../runs/:runId/messages?recipient=).
 * Without it that lookup reads every message of the run; with it, the (run_id, recipient) range
 * is read in id order (InnoDB appends the primary key), so keyset pages need no sort.
 * Built online (INPLACE, LOCK=NONE) so writers to messages are not blocked on a large table.
 */
export class MessagesRunRecipientIndex1763834000000 implements MigrationInterface {
  name = 'MessagesRunRecipientIndex1763834000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX `idx_messages_run_recipient` ON `messages` (`run_id`, `recipient`) ALGORITHM=INPLACE LOCK=NONE',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX `idx_messages_run_recipient` ON `messages`');
  }
}
