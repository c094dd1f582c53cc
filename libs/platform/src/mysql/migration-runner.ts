import { MigrationExecutor, type DataSource } from 'typeorm';

/**
 * Applies every pending migration, each in its own transaction, and returns their names.
 * MySQL commits DDL implicitly, so the transaction only covers the bookkeeping row; a
 * migration that fails half way must be cleaned up by hand.
 */
export async function runPendingMigrations(ds: DataSource): Promise<string[]> {
  const applied = await ds.runMigrations({ transaction: 'each' });
  return applied.map((migration) => migration.name);
}

/** Reverts applied migrations newest first until none is left; returns how many were reverted. */
export async function revertAllMigrations(ds: DataSource): Promise<number> {
  let reverted = 0;
  let remaining = await countExecutedMigrations(ds);
  while (remaining > 0) {
    await ds.undoLastMigration({ transaction: 'each' });
    const after = await countExecutedMigrations(ds);
    // Guard against looping forever if TypeORM ever reverts nothing without throwing.
    if (after >= remaining) {
      throw new Error(`Reverting the last migration left ${after} applied migration(s); expected fewer`);
    }
    remaining = after;
    reverted += 1;
  }
  return reverted;
}

async function countExecutedMigrations(ds: DataSource): Promise<number> {
  return (await new MigrationExecutor(ds).getExecutedMigrations()).length;
}
