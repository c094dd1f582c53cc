import 'reflect-metadata';
import { createWriteStream, mkdirSync, openAsBlob, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { join } from 'node:path';
import { benchKafkaClient, startBenchKafka } from './bench-kafka';
import { peakRssMb } from './process-usage';
import { AllTopics, Scope, Topics } from '@ums/contracts';
import {
  createDataSource,
  ensureTopics,
  KafkaNames,
  newOperatorKey,
  runPendingMigrations,
} from '@ums/platform';
import {
  BatchProbe,
  bearer,
  createTestDatabase,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  waitUntil,
  workspaceRoot,
} from '@ums/testing';
import { createTenantApiKey } from '../stack/pipeline-campaign';

/**
 * Campaign-stage benchmark: a 1,000,000-row CSV uploaded to the scheduler (audience import rate)
 * and expanded by the batch expander into batches on Kafka (expansion rate), with the peak RSS of
 * each service process. Real Kafka, MariaDB and processes; backpressure is lifted so expansion is
 * measured on its own (senders are another stage). Usage: bench [--recipients N].
 */
async function main(): Promise<void> {
  const countArg = process.argv.indexOf('--recipients');
  const recipients = countArg > 0 ? Number(process.argv[countArg + 1]) : 1_000_000;
  if (!Number.isInteger(recipients) || recipients < 1)
    throw new Error('--recipients needs a positive integer');
  const outDir = join(workspaceRoot(), 'tmp', 'bench');
  mkdirSync(outDir, { recursive: true });
  process.env['UMS_TEST_LOG_DIR'] = join(outDir, 'logs');
  const say = (line: string): void => void process.stdout.write(`[bench] ${line}\n`);

  const broker = await startBenchKafka(join(workspaceRoot(), '.cache', 'kafka', `bench-${process.pid}`));
  const brokers = (process.env['KAFKA_BROKERS'] ?? '').split(',');
  const db = await createTestDatabase('bench');
  const processes: ServiceProcess[] = [];
  let probe: BatchProbe | undefined;
  try {
    const ds = createDataSource(db.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const namespace = `bench-${randomBytes(3).toString('hex')}`;
    const names = new KafkaNames(namespace);
    const kafka = benchKafkaClient('bench');
    await ensureTopics(kafka, AllTopics, broker.replication, names);
    // An operator key of this run only; the bench's calls carry a key of its tenant made with it.
    const operatorKey = newOperatorKey();
    const env = { ...serviceEnv(db.settings.database, namespace), AUTH_OPERATOR_KEY: operatorKey };
    const scheduler = await startServiceProcess({
      app: 'campaign-scheduler',
      env: { ...env, LOG_LEVEL: 'warn', SCHEDULER_TICK_MS: '200' },
    });
    processes.push(scheduler);
    const expander = await startServiceProcess({
      app: 'batch-expander',
      // EXPANDER_* settings of the bench's own environment are passed on (to compare step sizes).
      env: { ...env, LOG_LEVEL: 'warn', EXPANDER_MAX_BATCHES_AHEAD: '100000', ...expanderOverrides() },
    });
    processes.push(expander);

    const csv = join(outDir, `audience-${recipients}.csv`);
    say(`writing ${recipients.toLocaleString('en')} recipients to ${csv}`);
    await writeCsv(csv, recipients);
    const megabytes = statSync(csv).size / 1_048_576;

    await ds.query(
      `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, rate_ceiling_per_sec, rate_floor_per_sec)
       VALUES ('cred_bench', 'bench', 'bench', 'simulator', 'sms', '{}', 100000, 10)`,
    );
    const apiKey = await createTenantApiKey({
      schedulerUrl: scheduler.url,
      operatorKey,
      tenantId: 'bench',
      scopes: [Scope.CampaignsRead, Scope.CampaignsWrite],
    });
    const campaign = await post<{ id: string }>(apiKey, `${scheduler.url}/v1/campaigns`, {
      name: 'Benchmark',
      channel: 'sms',
      credentialId: 'cred_bench',
      template: { text: 'Hello {{first_name}}, your code is {{code}}' },
      schedule: { kind: 'now' },
    });

    say(`uploading ${megabytes.toFixed(1)} MB (multipart, streamed)`);
    const form = new FormData();
    form.append('file', await openAsBlob(csv, { type: 'text/csv' }), 'audience.csv');
    const importStarted = Date.now();
    const uploaded = await fetch(`${scheduler.url}/v1/campaigns/${campaign.id}/audience/csv`, {
      method: 'POST',
      headers: bearer(apiKey),
      body: form,
    });
    const importSeconds = (Date.now() - importStarted) / 1000;
    const summary = (await uploaded.json()) as Record<string, unknown>;
    if (uploaded.status !== 201)
      throw new Error(`upload answered ${uploaded.status}: ${JSON.stringify(summary)}`);
    const schedulerPeakMb = peakRssMb(scheduler.process.pid) ?? 0;

    probe = await BatchProbe.start({
      brokers,
      topic: names.topic(Topics.batches.name),
      groupId: 'bench-probe',
    });
    say('expanding');
    const started = await post<{ runs: { id: string }[] }>(
      apiKey,
      `${scheduler.url}/v1/campaigns/${campaign.id}/start`,
      {},
    );
    const runId = started.runs[0]?.id as string;
    const run = await waitUntil(
      'run expanded',
      async () => {
        const rows = (await ds.query(
          `SELECT total, batches_published, TIMESTAMPDIFF(MICROSECOND, started_at, expanded_at) AS us
             FROM runs WHERE id = ? AND expanded_at IS NOT NULL`,
          [runId],
        )) as Record<string, unknown>[];
        return rows[0];
      },
      { timeoutMs: 3_600_000, intervalMs: 250, abortIf: expander.process.exitedUnexpectedly },
    );
    const expandSeconds = Number(run['us']) / 1e6;
    const total = Number(run['total']);
    await waitUntil('probe saw every recipient', () => probe !== undefined && probe.timesSeen.size >= total, {
      timeoutMs: 600_000,
      intervalMs: 250,
    });

    const phases = await phaseBreakdown(expander.managementUrl);
    const figures = {
      recipients,
      csvMegabytes: Number(megabytes.toFixed(1)),
      import: {
        seconds: Number(importSeconds.toFixed(2)),
        rowsPerSecond: Math.round(recipients / importSeconds),
        accepted: summary['rowsAccepted'],
        rejected: summary['rowsRejected'],
        duplicate: summary['rowsDuplicate'],
        schedulerPeakRssMb: schedulerPeakMb,
      },
      expansion: {
        seconds: Number(expandSeconds.toFixed(2)),
        recipientsPerSecond: Math.round(total / expandSeconds),
        messagesCreated: total,
        batchesPublished: Number(run['batches_published']),
        recipientsSeenOnKafka: probe.timesSeen.size,
        republished: probe.duplicates().extraCopies,
        expanderPeakRssMb: peakRssMb(expander.process.pid) ?? 0,
        /** Mean seconds per step in each phase (the next step's read/create/pending overlap this step's publish). */
        meanPhaseSeconds: phases,
      },
      at: new Date().toISOString(),
    };
    const file = join(outDir, 'campaign-bench.json');
    writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
    say(
      `audience import: ${figures.import.rowsPerSecond.toLocaleString('en')} rows/s ` +
        `(${figures.import.seconds} s, accepted ${String(figures.import.accepted)}), scheduler peak RSS ${schedulerPeakMb} MB`,
    );
    say(
      `expansion: ${figures.expansion.recipientsPerSecond.toLocaleString('en')} recipients/s published ` +
        `(${figures.expansion.seconds} s, ${figures.expansion.batchesPublished} batches), expander peak RSS ${figures.expansion.expanderPeakRssMb} MB`,
    );
    say(
      `expansion phases, mean per step of ${String(Number(process.env['EXPANDER_BATCHES_PER_STEP'] ?? 10) * 100)}: ` +
        Object.entries(phases)
          .map(([phase, seconds]) => `${phase} ${(seconds * 1000).toFixed(1)} ms`)
          .join(', '),
    );
    say(`figures written to ${file}`);
    await ds.destroy();
  } finally {
    await probe?.stop();
    await Promise.all(processes.map((p) => p.process.stop()));
    await db.drop();
    await broker.stop();
  }
}

function expanderOverrides(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[0].startsWith('EXPANDER_') && entry[1] !== undefined,
    ),
  );
}

async function writeCsv(path: string, rows: number): Promise<void> {
  const out = createWriteStream(path);
  out.write('phone,first_name,code\n');
  for (let i = 0; i < rows; i++) {
    // Valid German mobile numbers (+49 151 ...), a quoted name with a comma every 10th row.
    const line = `+49151${String(10_000_000 + i)},${i % 10 === 0 ? `"R${i}, Jr."` : `R${i}`},${i % 9973}\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

async function post<T>(apiKey: string, url: string, body: unknown): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(apiKey) },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as T;
  if (response.status >= 300)
    throw new Error(`${url} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

/** Mean duration of each expansion phase, from the expander's own histogram. */
async function phaseBreakdown(managementUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${managementUrl}/metrics`)).text();
  const sums = new Map<string, number>();
  const counts = new Map<string, number>();
  for (const match of text.matchAll(
    /^ums_expander_phase_duration_seconds_(sum|count)\{[^}]*phase="(\w+)"[^}]*\} ([\d.e+-]+)$/gm,
  )) {
    const [, kind, phase, value] = match as unknown as [string, string, string, string];
    (kind === 'sum' ? sums : counts).set(phase, Number(value));
  }
  return Object.fromEntries(
    [...sums.entries()].map(([phase, sum]) => [phase, Number((sum / (counts.get(phase) ?? 1)).toFixed(4))]),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
