import { MessageErrorCode, MessageStatus, RunState } from '@ums/contracts';
import {
  ALL_MESSAGE_STATES,
  archiveColumnsOf,
  archiveLagSeconds,
  FINISHED_RUN_STATES,
  type IdProbe,
  lastIdCreatedBefore,
  SETTLED_SINGLE_SEND_STATES,
  WindowBudget,
} from './message-archive-plan';

describe('archiveColumnsOf', () => {
  it('copies every column of messages, in its order', () => {
    expect(archiveColumnsOf(['id', 'run_id', 'state'], ['id', 'run_id', 'state', 'archived_at'])).toEqual([
      'id',
      'run_id',
      'state',
    ]);
  });

  it('refuses when the archive lacks a column of messages (its values would be lost), naming it', () => {
    const refuse = () => archiveColumnsOf(['id', 'state', 'charge'], ['id', 'state', 'archived_at']);
    expect(refuse).toThrow(/messages_archive lacks charge/);
    expect(refuse).toThrow(expect.objectContaining({ code: MessageErrorCode.ArchiveRefused }));
  });

  it('refuses an archive without archived_at, and a schema with no messages table', () => {
    expect(() => archiveColumnsOf(['id'], ['id'])).toThrow(/lacks archived_at/);
    expect(() => archiveColumnsOf([], ['id', 'archived_at'])).toThrow(/migrated/);
  });
});

describe('lastIdCreatedBefore', () => {
  /** Messages with gaps in their ids (rolled-back inserts), created a second apart. */
  const ids = [3n, 4n, 9n, 10n, 11n, 40n, 41n, 100n];
  const createdAt = (id: bigint) => new Date(Date.UTC(2030, 0, 1, 0, 0, ids.indexOf(id)));
  const probe = (id: bigint): Promise<IdProbe | undefined> => {
    const found = ids.find((candidate) => candidate >= id);
    return Promise.resolve(found === undefined ? undefined : { id: found, createdAt: createdAt(found) });
  };

  it('finds the last id created before the cutoff, whatever the gaps', async () => {
    for (const id of ids) {
      const cutoff = new Date(createdAt(id).getTime() + 500);
      await expect(lastIdCreatedBefore(3n, 100n, cutoff, probe)).resolves.toBe(id);
    }
  });

  it('answers undefined when every message is younger than the cutoff', async () => {
    await expect(
      lastIdCreatedBefore(3n, 100n, new Date(Date.UTC(2029, 0, 1)), probe),
    ).resolves.toBeUndefined();
  });

  it('reads about log2 of the id range, not every message', async () => {
    const many = (id: bigint): Promise<IdProbe> => Promise.resolve({ id, createdAt: new Date(Number(id)) });
    let reads = 0;
    const counted = (id: bigint) => {
      reads += 1;
      return many(id);
    };
    await expect(lastIdCreatedBefore(1n, 1_000_000_000n, new Date(123_456_789), counted)).resolves.toBe(
      123_456_788n,
    );
    expect(reads).toBeLessThanOrEqual(31);
  });
});

describe('WindowBudget', () => {
  it('hands out maxWindows windows, then none', () => {
    const budget = new WindowBudget({ maxWindows: 2, stopped: () => false });
    expect([budget.take(), budget.take(), budget.take()]).toEqual([true, true, false]);
    expect(budget.spent).toBe(2);
  });

  it('hands out none once a stop is asked for', () => {
    let stopped = false;
    const budget = new WindowBudget({ maxWindows: 10, stopped: () => stopped });
    expect(budget.take()).toBe(true);
    stopped = true;
    expect(budget.take()).toBe(false);
  });
});

describe('what is archived', () => {
  it('archives the runs that can change no more, and single sends no longer in flight', () => {
    expect([...FINISHED_RUN_STATES].sort()).toEqual([RunState.Completed, RunState.Failed, RunState.Stopped]);
    expect(SETTLED_SINGLE_SEND_STATES).not.toContain(MessageStatus.Pending);
    expect(SETTLED_SINGLE_SEND_STATES).not.toContain(MessageStatus.Sending);
    expect(SETTLED_SINGLE_SEND_STATES.length).toBe(ALL_MESSAGE_STATES.length - 2);
  });

  it('reports the lag past the retention of the oldest finish still waiting, never negative', () => {
    const now = new Date(Date.UTC(2030, 0, 31));
    const day = 86_400_000;
    expect(archiveLagSeconds(undefined, 30 * day, now)).toBe(0);
    expect(archiveLagSeconds(new Date(Date.UTC(2030, 0, 1)), 29 * day, now)).toBe(86_400);
    expect(archiveLagSeconds(new Date(Date.UTC(2030, 0, 30)), 29 * day, now)).toBe(0);
  });
});
