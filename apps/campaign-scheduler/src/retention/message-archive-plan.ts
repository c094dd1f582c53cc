import { MessageErrorCode, MessageStatus, RunState } from '@ums/contracts';
import { CodedError } from '@ums/platform';

/** Runs whose messages may be archived once finished_at is past the retention. */
export const FINISHED_RUN_STATES: readonly RunState[] = [
  RunState.Completed,
  RunState.Stopped,
  RunState.Failed,
];

/**
 * States of a single send that is no longer in flight: archived once its last change (updated_at) is
 * past the retention. PENDING and SENDING rows are a sender's work and stay, however old.
 */
export const SETTLED_SINGLE_SEND_STATES: readonly MessageStatus[] = Object.values(MessageStatus).filter(
  (state) => state !== MessageStatus.Pending && state !== MessageStatus.Sending,
);

/** Every message state: a run's rows are moved state by state, each an index range in id order. */
export const ALL_MESSAGE_STATES: readonly MessageStatus[] = Object.values(MessageStatus);

/** The archive's own column, after the copy of every `messages` column. */
export const ARCHIVED_AT_COLUMN = 'archived_at';

/**
 * The columns a window copies, named explicitly: every column of `messages`, in its order. The lists are
 * read from the schema, so a column added to both tables is copied without a code change; a column of
 * `messages` that `messages_archive` lacks (a migration that changed one table only) refuses archiving
 * altogether, as copying without it would lose its values when the hot row is deleted.
 */
export function archiveColumnsOf(hot: readonly string[], archive: readonly string[]): string[] {
  const archived = new Set(archive);
  const missing = hot.filter((column) => !archived.has(column));
  if (hot.length === 0 || missing.length > 0 || !archived.has(ARCHIVED_AT_COLUMN)) {
    throw new CodedError(
      MessageErrorCode.ArchiveRefused,
      hot.length === 0
        ? 'messages has no columns (is the schema migrated?)'
        : `messages_archive lacks ${[...missing, ...(archived.has(ARCHIVED_AT_COLUMN) ? [] : [ARCHIVED_AT_COLUMN])].join(', ')}: change it as messages was changed`,
      { missing },
    );
  }
  return [...hot];
}

/** The first message at or after an id: its id and when it was created. */
export interface IdProbe {
  readonly id: bigint;
  readonly createdAt: Date;
}

/**
 * The highest id created before `cutoff`, found by bisection over [lo, hi] (the smallest and largest
 * message ids) with `probe(id)`, the first message at or after `id`: about log2(hi - lo) primary-key
 * reads. Ids grow with creation time, so every message created before the cutoff has an id at most the
 * result (a message's creation time and id may disagree by the length of its inserting transaction; the
 * windows check each row's own times, so this only bounds how far they read). Undefined when none was.
 */
export async function lastIdCreatedBefore(
  lo: bigint,
  hi: bigint,
  cutoff: Date,
  probe: (id: bigint) => Promise<IdProbe | undefined>,
): Promise<bigint | undefined> {
  let found: bigint | undefined;
  let low = lo;
  let high = hi;
  while (low <= high) {
    const mid = low + (high - low) / 2n;
    const row = await probe(mid);
    if (row === undefined || row.createdAt >= cutoff) {
      high = mid - 1n;
    } else {
      found = row.id;
      low = row.id + 1n;
    }
  }
  return found;
}

/** Counts windows against a tick's budget and a stop request. */
export class WindowBudget {
  private used = 0;

  constructor(private readonly options: { readonly maxWindows: number; readonly stopped: () => boolean }) {}

  /** Takes one window if any is left and no stop was asked for. */
  take(): boolean {
    if (this.used >= this.options.maxWindows || this.options.stopped()) return false;
    this.used += 1;
    return true;
  }

  get spent(): number {
    return this.used;
  }
}

/** Seconds by which the oldest finish still waiting for the archiver is past the retention (0: none). */
export function archiveLagSeconds(
  oldestFinishedAt: Date | undefined,
  retentionMs: number,
  now: Date,
): number {
  if (oldestFinishedAt === undefined) return 0;
  return Math.max(0, (now.getTime() - retentionMs - oldestFinishedAt.getTime()) / 1000);
}
