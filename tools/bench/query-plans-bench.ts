import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDataSource, runPendingMigrations } from '@ums/platform';
import { createTestDatabase, workspaceRoot } from '@ums/testing';
import { describeHost, hostFigures } from './host-figures';
import { describePlanRow, explainHotQueries } from './hot-queries';
import { fillMessageTables } from './message-tables-fill';

/**
 * Query plans at scale: fills a scratch database's `messages` with 10,000,000 rows (100 runs, 80 of
 * them finished 60 days ago, plus single sends; 5 runs copied to `messages_archive`), then EXPLAINs
 * every hot statement on the message tables (tools/bench/hot-queries.ts) and prints each plan's table,
 * access type, key and estimated rows. Fails when a message table would be scanned (type ALL or index).
 * Usage: query-plans-bench [--messages N] (default 10,000,000).
 */
async function main(): Promise<void> {
  const arg = process.argv.indexOf('--messages');
  const messages = arg > 0 ? Number(process.argv[arg + 1]) : 10_000_000;
  if (!Number.isInteger(messages) || messages < 100_000)
    throw new Error('--messages needs an integer of at least 100000');
  const db = await createTestDatabase('bench_plans');
  const ds = createDataSource({ ...db.admin, poolSize: 1 });
  await ds.initialize();
  try {
    const host = await hostFigures(db.settings);
    say(describeHost(host));
    await runPendingMigrations(ds);
    const query = (sql: string, params?: unknown[]) => ds.query(sql, params) as Promise<unknown>;
    const started = Date.now();
    const sample = await fillMessageTables(query, {
      messages,
      runs: 100,
      archivedRuns: 5,
      onProgress: (filled) => {
        if (filled % 1_000_000 === 0 || filled === messages) say(`filled ${filled} messages`);
      },
    });
    const fillSeconds = Math.round((Date.now() - started) / 1000);
    say(`filled in ${fillSeconds} s`);
    const plans = await explainHotQueries(query, sample);
    say('query | table | type | key | rows');
    for (const row of plans) say(describePlanRow(row));
    const scans = plans.filter((row) => row.scan);
    const outDir = join(workspaceRoot(), 'tmp', 'bench');
    mkdirSync(outDir, { recursive: true });
    writeFileSync(
      join(outDir, 'query-plans-bench.json'),
      `${JSON.stringify({ messages, fillSeconds, plans, scans: scans.length, host, at: new Date().toISOString() }, null, 2)}\n`,
    );
    if (scans.length > 0)
      throw new Error(
        `${scans.length} plan(s) scan a message table:\n${scans.map(describePlanRow).join('\n')}`,
      );
    say(`no message table scanned (${plans.length} plan rows)`);
  } finally {
    await ds.destroy();
    await db.drop();
  }
}

function say(line: string): void {
  process.stdout.write(`[query-plans-bench] ${line}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `query-plans bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
