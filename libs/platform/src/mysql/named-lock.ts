import type { DataSource, QueryRunner } from 'typeorm';
import { selectRows } from './typed-rows';

/** GET_LOCK's answer: 1 taken, 0 timed out, NULL on error (INT on MariaDB; MySQL answers BIGINT, a string). */
interface LockRow {
  readonly acquired: number | string | null;
}

export interface NamedLock {
  /** At most 64 characters, with the database's name when `perDatabase`. */
  readonly name: string;
  /** How long GET_LOCK waits for another holder; 0 tries once. */
  readonly waitSeconds: number;
  /** The current database's name appended: databases on one server do not share the lock. */
  readonly perDatabase?: boolean;
}

export type Locked<T> = { readonly acquired: true; readonly value: T } | { readonly acquired: false };

/**
 * Runs `work` on one pooled connection while that connection holds a MySQL named lock, and releases
 * the lock after it, whatever `work` does. `acquired: false` when the lock was not taken in time.
 */
export async function withNamedLock<T>(
  dataSource: DataSource,
  lock: NamedLock,
  work: (runner: QueryRunner) => Promise<T>,
): Promise<Locked<T>> {
  const nameSql = lock.perDatabase === true ? 'CONCAT(?, DATABASE())' : '?';
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    const [row] = await selectRows<LockRow>(runner, `SELECT GET_LOCK(${nameSql}, ?) AS acquired`, [
      lock.name,
      lock.waitSeconds,
    ]);
    if (Number(row?.acquired) !== 1) return { acquired: false };
    try {
      return { acquired: true, value: await work(runner) };
    } finally {
      await runner.query(`DO RELEASE_LOCK(${nameSql})`, [lock.name]);
    }
  } finally {
    await runner.release();
  }
}
