import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDataSource, messageTime, runPendingMigrations } from '@ums/platform';
import { createTestDatabase, workspaceRoot } from '@ums/testing';
import type { DataSource } from 'typeorm';
import { countersThrough } from './database-counters';
import { describeHost, hostFigures } from './host-figures';

const BATCH = 100;
/** A provider id as long as WhatsApp's (`wamid.` and about 52 characters). */
const PROVIDER_ID_LENGTH = 58;
/** A status event's webhook body is about 400 bytes. */
const PAYLOAD = JSON.stringify({ type: 'message.status', data: { pad: 'x'.repeat(360) } });

type Step = 'insert' | 'claim' | 'record' | 'callbacks' | 'deliveries';

/**
 * Redo log per message for each write of a message's life, as the services make them (multi-row
 * statements of 100 rows, on the schema the migrations make): the expander's insert, the claim, the
 * record (the row and its provider id), the callbacks (delivered and read, applied together as one
 * chunk does) and three delivery rows. Message rows keep their length for life: an update that
 * lengthened a row of a full page (rows are appended in id order, so their pages are full) would
 * make InnoDB move it and reorganize or split the page, at several times the redo of the change.
 * Usage: row-writes-bench [--messages N] (default 20,000).
 */
async function main(): Promise<void> {
  const arg = process.argv.indexOf('--messages');
  const messages = arg > 0 ? Number(process.argv[arg + 1]) : 20_000;
  if (!Number.isInteger(messages) || messages < BATCH)
    throw new Error(`--messages needs an integer of at least ${BATCH}`);
  const db = await createTestDatabase('bench_rows');
  const ds = createDataSource({ ...db.admin, poolSize: 1 });
  await ds.initialize();
  try {
    const host = await hostFigures(db.settings);
    say(describeHost(host));
    await runPendingMigrations(ds);
    const figures = { messages, redoBytesPerMessage: await lifeOfMessages(ds, messages, 1), host };
    for (const [key, value] of Object.entries(figures)) say(`${key}: ${JSON.stringify(value)}`);
    const outDir = join(workspaceRoot(), 'tmp', 'bench');
    mkdirSync(outDir, { recursive: true });
    writeFileSync(
      join(outDir, 'row-writes-bench.json'),
      `${JSON.stringify({ ...figures, at: new Date().toISOString() }, null, 2)}\n`,
    );
  } finally {
    await ds.destroy();
    await db.drop();
  }
}

/** Redo bytes per message of each step, over `messages` rows of run `runId`. */
async function lifeOfMessages(
  ds: DataSource,
  messages: number,
  runId: number,
): Promise<Record<Step, number>> {
  const redo: Record<Step, number> = { insert: 0, claim: 0, record: 0, callbacks: 0, deliveries: 0 };
  const first = runId * 10_000_000;
  for (let at = 0; at < messages; at += BATCH) {
    const contacts = Array.from({ length: Math.min(BATCH, messages - at) }, (_, i) => first + at + i);
    redo.insert += await measured(ds, () =>
      ds.query(
        `INSERT INTO messages (run_id, campaign_id, tenant_id, contact_id, channel, credential_id, recipient, lane)
         VALUES ${contacts.map(() => `(?, 'cmp_7f3a9c2b1d4e4f0a8b6c', 'bench', ?, 'whatsapp', 'cred_bench', ?, 'bulk')`).join(', ')}`,
        contacts.flatMap((c) => [runId, c, `+49151${c}`]),
      ),
    );
  }
  const ids = (
    (await ds.query('SELECT id FROM messages WHERE run_id = ? ORDER BY id', [runId])) as { id: string }[]
  ).map((r) => r.id);
  for (let at = 0; at < ids.length; at += BATCH) {
    const batch = ids.slice(at, at + BATCH);
    redo.claim += await measured(ds, () =>
      ds.query(
        `UPDATE messages SET state = 'SENDING', claim_token = UUID(), claimed_at = UTC_TIMESTAMP(3),
           attempts = attempts + 1, updated_at = UTC_TIMESTAMP(3) WHERE id IN (?)`,
        [batch],
      ),
    );
    redo.record += await measured(ds, async () => {
      await ds.query(
        `UPDATE messages SET state = 'SENT', sent_at = UTC_TIMESTAMP(3), updated_at = UTC_TIMESTAMP(3) WHERE id IN (?)`,
        [batch],
      );
      await ds.query(
        `INSERT INTO message_provider_ids (message_id, provider_message_id)
         VALUES ${batch.map(() => `(?, CONCAT('wamid.', LPAD(?, ${PROVIDER_ID_LENGTH - 6}, '0')))`).join(', ')}`,
        batch.flatMap((id) => [id, id]),
      );
    });
  }
  for (let at = 0; at < ids.length; at += BATCH) {
    const batch = ids.slice(at, at + BATCH);
    redo.callbacks += await measured(ds, () =>
      ds.query(
        `UPDATE messages SET state = 'READ',
           delivered_at = COALESCE(${messageTime('delivered_at')}, UTC_TIMESTAMP(3)),
           read_at = COALESCE(${messageTime('read_at')}, UTC_TIMESTAMP(3)), updated_at = UTC_TIMESTAMP(3)
         WHERE id IN (?)`,
        [batch],
      ),
    );
    const rows = batch.flatMap((id) => ['SENT', 'DELIVERED', 'READ'].map((s) => `${runId}:${id}:${s}`));
    redo.deliveries += await measured(ds, () =>
      ds.query(
        `INSERT INTO deliveries (subscriber_id, event_id, event_type, payload, state, attempts, last_status_code, delivered_at)
         VALUES ${rows.map(() => `('sub_bench', ?, 'message.status', ?, 'DELIVERED', 1, 200, UTC_TIMESTAMP(3))`).join(', ')}`,
        rows.flatMap((eventId) => [eventId, PAYLOAD]),
      ),
    );
  }
  return Object.fromEntries(
    Object.entries(redo).map(([step, bytes]) => [step, Math.round(bytes / messages)]),
  ) as Record<Step, number>;
}

/** The redo log bytes written while `work` ran (server-wide: run this stage alone). */
async function measured(ds: DataSource, work: () => Promise<unknown>): Promise<number> {
  const before = await redoWritten(ds);
  await work();
  return (await redoWritten(ds)) - before;
}

async function redoWritten(ds: DataSource): Promise<number> {
  const counters = await countersThrough((sql, params) => ds.query(sql, params) as Promise<unknown>);
  return counters.Innodb_os_log_written ?? 0;
}

function say(line: string): void {
  process.stdout.write(`[row-writes-bench] ${line}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `row-writes bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
