import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { startKafkaBroker, type KafkaBrokerHandle } from '../kafka/kafka-broker';
import { workspaceRoot } from '../workspace-root';

declare global {
  // Shared with global-teardown (same process).
  var __UMS_TEST_BROKER__: KafkaBrokerHandle | undefined;
}

/**
 * Starts one real Kafka broker for the whole test run unless KAFKA_BROKERS points at a cluster.
 * Workers are forked after this runs, so they inherit KAFKA_BROKERS. Unit-only runs
 * (`--selectProjects unit`) skip the broker.
 */
export default async function globalSetup(): Promise<void> {
  const onlyUnit =
    process.argv.includes('--selectProjects') &&
    !process.argv.includes('integration') &&
    !process.argv.includes('redis-cluster');
  if (onlyUnit) return;
  // Logs of spawned processes are per run (tests read some of them back); concurrent runs keep theirs.
  const logDir = join(workspaceRoot(), 'tmp', 'test-logs', `run-${process.pid}`);
  rmSync(logDir, { recursive: true, force: true });
  process.env['UMS_TEST_LOG_DIR'] = logDir;
  // Process-level tests spawn services from their SWC build, so build it fresh (about a second).
  execFileSync('npm', ['run', '-s', 'build'], { cwd: workspaceRoot(), stdio: 'inherit' });
  if ((process.env['KAFKA_BROKERS'] ?? '') !== '') return;
  const dataDir = join(workspaceRoot(), '.cache', 'kafka', `test-${process.pid}`);
  rmSync(dataDir, { recursive: true, force: true });
  const started = Date.now();
  const broker = await startKafkaBroker({ dataDir, heapMb: 768 });
  process.env['KAFKA_BROKERS'] = broker.brokers;
  globalThis.__UMS_TEST_BROKER__ = broker;
  process.stdout.write(`\nKafka ${broker.brokers} ready in ${Date.now() - started} ms (data ${dataDir})\n`);
}
