import 'reflect-metadata';
import { join } from 'node:path';
import { workspaceRoot } from '@ums/testing';
import { defaultLogDir, type LocalStack, startLocalStack } from './stack/local-stack';

/**
 * The README's main command. Today it brings the whole stack up for real (Kafka, schema, topics,
 * the five services and the provider simulator), shows each one ready with its dependency checks
 * and metrics, and stops everything. The campaign run end to end is added by the end-to-end issue.
 * Options: --keep leaves the stack running (ports 3000-3005; Kafka detached in .cache/kafka/dev);
 * --kafka-port N starts the broker on that port (default: a free one).
 */
async function main(): Promise<void> {
  const keep = process.argv.includes('--keep');
  const portArg = process.argv.indexOf('--kafka-port');
  const kafkaPort = portArg > 0 ? Number(process.argv[portArg + 1]) : undefined;
  if (kafkaPort !== undefined && !(Number.isInteger(kafkaPort) && kafkaPort > 0 && kafkaPort < 65536)) {
    throw new Error('--kafka-port needs a port number');
  }
  const started = Date.now();
  const say = (line: string): void =>
    void process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${line}\n`);
  const logDir = defaultLogDir('demo-logs');
  let stack: LocalStack | undefined;
  try {
    stack = await startLocalStack({
      kafkaBrokers: process.env['KAFKA_BROKERS'] || undefined,
      kafkaDataDir: join(workspaceRoot(), '.cache', 'kafka', 'dev'),
      keepRunning: keep,
      kafkaPort,
      mysqlDatabase: process.env['MYSQL_DATABASE'] ?? 'ums',
      basePort: 3000,
      logDir,
      env: pick(['MYSQL_HOST', 'MYSQL_PORT', 'MYSQL_USER', 'MYSQL_PASSWORD', 'REDIS_URL']),
      onStep: say,
    });
    say(`all ${stack.services.length} services ready; Kafka at ${stack.brokers}`);
    const rows: string[][] = [['service', 'url', 'ready', 'checks', 'metrics']];
    for (const service of stack.services) {
      const ready = await fetch(`${service.url}/health/ready`);
      const body = (await ready.json()) as { checks: Record<string, { ok: boolean }> };
      const metrics = await (await fetch(`${service.url}/metrics`)).text();
      const checks = Object.entries(body.checks).map(([name, r]) => `${name}:${r.ok ? 'ok' : 'FAIL'}`);
      rows.push([
        service.name,
        service.url,
        String(ready.status),
        checks.join(' ') || '(none)',
        `${metrics.split('\n').filter((l) => l.startsWith('# HELP')).length} series`,
      ]);
    }
    printTable(rows);
    if (keep) {
      say(`--keep: services stay up (logs in ${logDir}); stop them with: npm run infra:down`);
      process.exit(0);
    }
    const codes = await stack.stop();
    say(
      `stopped: ${Object.entries(codes)
        .map(([n, c]) => `${n}=${String(c)}`)
        .join(' ')}`,
    );
    const unclean = Object.values(codes).filter((c) => c !== 0).length;
    if (unclean > 0) throw new Error(`${unclean} service(s) did not shut down cleanly; see ${logDir}`);
  } catch (error: unknown) {
    if (stack !== undefined && !keep) await stack.stop().catch(() => undefined);
    throw error;
  }
}

function pick(names: string[]): Record<string, string> {
  return Object.fromEntries(
    names.flatMap((n) => (process.env[n] !== undefined ? [[n, process.env[n] as string]] : [])),
  );
}

function printTable(rows: string[][]): void {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  for (const [index, row] of rows.entries()) {
    process.stdout.write(`  ${row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ')}\n`);
    if (index === 0) process.stdout.write(`  ${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`demo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
