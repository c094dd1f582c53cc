import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  Channel,
  defineTopic,
  MessageStatus,
  type MessageStatusV1,
  type TopicDefinition,
  Topics,
} from '@ums/contracts';
import {
  HealthRegistry,
  KafkaMetrics,
  KafkaNames,
  KafkaProducer,
  MetricsRegistry,
  ServiceInfo,
} from '@ums/platform';
import { workspaceRoot } from '@ums/testing';
import type { Kafka, Producer } from 'kafkajs';

const BATCH = 100;
/** Each variant runs in slices of this long, alternating, so both see the same machine load. */
const SLICE_MS = 250;

/**
 * What the CloudEvents headers add to the status topic's producer path, per publish of 100 records as
 * the sender makes it: KafkaProducer.publish (records, header bytes, queue, request assembly) on
 * ums.message.status.v1, and on the same topic without `cloudEvent`. The kafkajs client is a double
 * that takes the request and answers at once: no encoding, no broker (the headers add about 200 bytes
 * a record to both). Prints microseconds per publish; asserts nothing.
 * Usage: cloud-events-bench [--seconds N] (default 20, split between the two variants).
 */
async function main(): Promise<void> {
  const arg = process.argv.indexOf('--seconds');
  const seconds = arg > 0 ? Number(process.argv[arg + 1]) : 20;
  if (!Number.isFinite(seconds) || seconds < 1) throw new Error('--seconds needs a number of at least 1');
  const producer = benchProducer();
  await producer.onModuleInit();
  const bare: TopicDefinition<MessageStatusV1> = defineTopic({
    ...Topics.messageStatus,
    cloudEvent: undefined,
  });
  const batch = statusBatch();
  const totals = { bare: { publishes: 0, ms: 0 }, cloudEvents: { publishes: 0, ms: 0 } };
  const end = Date.now() + seconds * 1_000;
  while (Date.now() < end) {
    for (const [name, topic] of [
      ['bare', bare],
      ['cloudEvents', Topics.messageStatus],
    ] as const) {
      const started = process.hrtime.bigint();
      const until = Date.now() + SLICE_MS;
      while (Date.now() < until) {
        await producer.publish(topic, batch);
        totals[name].publishes++;
      }
      totals[name].ms += Number(process.hrtime.bigint() - started) / 1e6;
    }
  }
  await producer.onApplicationShutdown();
  const usPerPublish = (t: { publishes: number; ms: number }): number => (t.ms * 1_000) / t.publishes;
  const figures = {
    recordsPerPublish: BATCH,
    withoutHeadersUsPerPublish: round(usPerPublish(totals.bare)),
    withHeadersUsPerPublish: round(usPerPublish(totals.cloudEvents)),
    headersUsPerRecord: round((usPerPublish(totals.cloudEvents) - usPerPublish(totals.bare)) / BATCH),
    overheadPercent: round((usPerPublish(totals.cloudEvents) / usPerPublish(totals.bare) - 1) * 100),
    seconds,
  };
  for (const [key, value] of Object.entries(figures)) say(`${key}: ${value}`);
  const outDir = join(workspaceRoot(), 'tmp', 'bench');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(
    join(outDir, 'cloud-events-bench.json'),
    `${JSON.stringify({ ...figures, at: new Date().toISOString() }, null, 2)}\n`,
  );
}

/** The sender's producer, as its Kafka module makes it, over a client that answers every request at once. */
function benchProducer(): KafkaProducer {
  const client = {
    events: { CONNECT: 'connect', DISCONNECT: 'disconnect' },
    on: (): void => undefined,
    connect: (): Promise<void> => Promise.resolve(),
    disconnect: (): Promise<void> => Promise.resolve(),
    sendBatch: (): Promise<void> => Promise.resolve(),
  };
  const kafka = { producer: () => client as unknown as Producer } as unknown as Kafka;
  return new KafkaProducer(
    kafka,
    new KafkaMetrics(new MetricsRegistry('cloud-events-bench')),
    new HealthRegistry(),
    new KafkaNames(),
    new ServiceInfo('notification-sender'),
  );
}

/** A batch of status events as the sender publishes them (DELIVERED with the provider's time). */
function statusBatch(): MessageStatusV1[] {
  return Array.from({ length: BATCH }, (_, i) => ({
    eventId: `msg-${1_000_000 + i}-SENT-DELIVERED`,
    messageId: String(1_000_000 + i),
    tenantId: 'tenant-a',
    campaignId: 'cmp_01JBENCH00000000000000000',
    runId: '42',
    channel: Channel.Sms,
    recipient: `+49151${String(1_000_000 + i)}`,
    status: MessageStatus.Delivered,
    previousStatus: MessageStatus.Sent,
    providerMessageId: `wamid.${'x'.repeat(52)}`,
    occurredAt: '2026-11-24T10:00:00.000Z',
  }));
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

function say(line: string): void {
  process.stdout.write(`[cloud-events-bench] ${line}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `cloud-events bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
