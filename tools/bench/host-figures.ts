import { createHmac, createSecretKey } from 'node:crypto';
import { cpus } from 'node:os';
import type { MysqlConnectionSettings } from '@ums/platform';
import { withDatabase } from './database-query';
import { databaseSizes } from './database-settings';

/**
 * What a benchmark ran on, written beside its figures: the hosts behind one machine kind differ in
 * speed (the same code gave 1,560 and 2,681 full-loop messages/s at 1,000,000 recipients on two of
 * them), and the database server's buffer pool and redo log decide its disk I/O (docs/operations.md). Without
 * these, runs from different sessions cannot be told apart from a change in the code.
 */
export interface HostFigures {
  readonly cpuModel: string;
  readonly cores: number;
  /**
   * A fixed single-threaded workload (JSON and HMAC over a status-event-like object, the per-event
   * work every service repeats), best of three runs, in ms: lower is a faster host. Taken before
   * any service starts.
   */
  readonly calibrationMs: number;
  readonly database: { readonly version: string; readonly bufferPoolMb: number; readonly redoLogMb: number };
}

const CALIBRATION_ROUNDS = 3;
const CALIBRATION_EVENTS = 40_000;

/** Reads the host and the database server a benchmark uses; call it before anything starts. */
export async function hostFigures(database: MysqlConnectionSettings): Promise<HostFigures> {
  const { version, sizes } = await withDatabase(database, async (query) => {
    const [row] = (await query('SELECT VERSION() AS version')) as { version: string }[];
    return { version: String(row?.version ?? 'unknown'), sizes: await databaseSizes(query) };
  });
  const cores = cpus();
  return {
    cpuModel: cores[0]?.model.trim() ?? 'unknown',
    cores: cores.length,
    calibrationMs: calibrate(),
    database: { version, ...sizes },
  };
}

/** Best of CALIBRATION_ROUNDS timings of the workload, in ms (one decimal). */
export function calibrate(events = CALIBRATION_EVENTS): number {
  let best = Number.POSITIVE_INFINITY;
  let check = 0;
  for (let round = 0; round < CALIBRATION_ROUNDS; round++) {
    const started = performance.now();
    check += calibrationWorkload(events);
    best = Math.min(best, performance.now() - started);
  }
  // The checksum is used, so the workload cannot be optimised away.
  if (check < 0) throw new Error('calibration checksum went negative');
  return Math.round(best * 10) / 10;
}

/** The workload itself: returns a checksum of what it computed. */
export function calibrationWorkload(events: number): number {
  // A KeyObject, as the dispatcher signs with: Node 24.21 is 4-5x slower per HMAC given a Buffer key.
  const key = createSecretKey(Buffer.alloc(32, 7));
  let sum = 0;
  for (let i = 0; i < events; i++) {
    const body = JSON.stringify({
      type: 'message.status',
      timestamp: '2026-11-25T12:00:00.000Z',
      data: {
        eventId: `msg-${1_000_000 + i}-SENT-DELIVERED`,
        messageId: String(1_000_000 + i),
        campaignId: 'cmp_01JCALIBRATION00000000000',
        recipient: `+4915123${String(i).padStart(6, '0')}`,
        status: 'DELIVERED',
        occurredAt: '2026-11-25T12:00:00.000Z',
      },
    });
    const parsed = JSON.parse(body) as { data: { messageId: string } };
    const signature = createHmac('sha256', key).update(body).digest();
    sum += parsed.data.messageId.length + (signature[0] ?? 0);
  }
  return sum;
}

/** One line for a benchmark's output. */
export function describeHost(host: HostFigures): string {
  return (
    `host: ${host.cpuModel}, ${host.cores} cores, calibration ${host.calibrationMs} ms (lower is faster); ` +
    `${databaseLabel(host) === 'mariadb' ? 'MariaDB' : 'MySQL'} ${host.database.version}, ` +
    `buffer pool ${host.database.bufferPoolMb} MiB, redo log ${host.database.redoLogMb} MiB`
  );
}

/** How the database server's CPU is labelled: `mariadb`, or `mysql` for a server whose version says no MariaDB. */
export function databaseLabel(host: HostFigures): 'mariadb' | 'mysql' {
  return /mariadb/i.test(host.database.version) ? 'mariadb' : 'mysql';
}
