import { createTestDatabase } from '@ums/testing';
import type { DataSource } from 'typeorm';
import { createDataSource } from './data-source-options';
import { withNamedLock } from './named-lock';
import { selectRows } from './typed-rows';

/** Named locks on the real MariaDB: one holder at a time, released after the work, scoped per database. */
describe('withNamedLock', () => {
  let first: Awaited<ReturnType<typeof createTestDatabase>>;
  let second: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let other: DataSource;

  beforeAll(async () => {
    first = await createTestDatabase('ums_named_lock');
    second = await createTestDatabase('ums_named_lock');
    ds = createDataSource({ ...first.settings, poolSize: 4 });
    other = createDataSource({ ...second.settings, poolSize: 2 });
    await ds.initialize();
    await other.initialize();
  });

  afterAll(async () => {
    await ds?.destroy();
    await other?.destroy();
    await first?.drop();
    await second?.drop();
  });

  const lock = { name: 'ums.test_lock.', waitSeconds: 0, perDatabase: true };

  it('refuses a second holder while the first works, and lets one in after', async () => {
    const inside = await withNamedLock(ds, lock, async () => withNamedLock(ds, lock, async () => 'twice'));
    expect(inside).toEqual({ acquired: true, value: { acquired: false } });
    expect(await withNamedLock(ds, lock, async () => 'after')).toEqual({ acquired: true, value: 'after' });
  });

  it('releases the lock when the work throws', async () => {
    await expect(
      withNamedLock(ds, lock, async () => {
        throw new Error('work failed');
      }),
    ).rejects.toThrow('work failed');
    expect(await withNamedLock(ds, lock, async () => 'free')).toEqual({ acquired: true, value: 'free' });
  });

  it('runs the work on the connection that holds the lock', async () => {
    const held = await withNamedLock(ds, lock, (runner) =>
      selectRows<{ mine: number | string }>(
        runner,
        "SELECT IS_USED_LOCK(CONCAT('ums.test_lock.', DATABASE())) = CONNECTION_ID() AS mine",
      ),
    );
    expect(held.acquired && Number(held.value[0]?.mine)).toBe(1);
  });

  it('gives each database its own lock when perDatabase', async () => {
    const both = await withNamedLock(ds, lock, async () => withNamedLock(other, lock, async () => 'other'));
    expect(both).toEqual({ acquired: true, value: { acquired: true, value: 'other' } });
    const shared = { name: 'ums.test_lock.shared', waitSeconds: 0 };
    const one = await withNamedLock(ds, shared, async () => withNamedLock(other, shared, async () => 'x'));
    expect(one).toEqual({ acquired: true, value: { acquired: false } });
  });
});
