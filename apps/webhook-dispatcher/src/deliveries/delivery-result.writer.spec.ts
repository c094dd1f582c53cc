import { ConsumerGroups, type DeadLetterV1, KafkaHeaders, Topics, WebhookRetryTiers } from '@ums/contracts';
import {
  type FinishedWebhookAttempt,
  planWebhookWriteBack,
  type WebhookDeliveryJob,
  type WebhookWriteBackPlan,
} from '@ums/domain';
import { type KafkaProducer, loadConfig, type RawRecord } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import type { SubscribersRepository } from '../subscribers/subscribers.repository';
import { DeliveriesConfig } from './deliveries.config';
import type { DeliveriesRepository } from './deliveries.repository';
import type { DeliverySettlement } from './delivery.record';
import {
  deadLetterRecord,
  DeliveryResultWriter,
  planRecords,
  retryCopyRecord,
} from './delivery-result.writer';
import type { SubscriberTakedown } from './subscriber-takedown.service';

const NOW = 1_700_000_000_000;
const STATUS_SOURCE = { topic: 't-1.ums.message.status.v1', partition: 2, offset: '77' };

function job(id: string, attempt: number, subscriberId = 'sub-a'): WebhookDeliveryJob {
  return {
    deliveryId: id,
    subscriberId,
    eventId: `evt-${id}`,
    eventType: 'message.status',
    payload: '{"type":"message.status","data":{"x":"é"}}',
    attempt,
    firstAttemptAt: '2024-01-01T00:00:00.000Z',
    source: STATUS_SOURCE,
  };
}

function plan(batch: readonly FinishedWebhookAttempt[]): WebhookWriteBackPlan {
  return planWebhookWriteBack({
    batch,
    inWindow: new Map(),
    isAlive: () => true,
    policy: { threshold: 20, windowMs: 60_000 },
    retryDelaysMs: [5_000, 30_000, 120_000, 600_000, 3_600_000],
    jitterRatio: 0,
    now: NOW,
    random: () => 0,
  });
}

const failure = (j: WebhookDeliveryJob, error = 'HTTP 500'): FinishedWebhookAttempt => ({
  job: j,
  kind: 'attempted',
  result: { kind: 'failed', status: 500, error },
});

describe('delivery result records', () => {
  it('writes a retry-tier copy with the forward headers, its origin the deliveries topic', () => {
    const [copy] =
      plan([failure(job('1', 1), 'x'.repeat(2_000))]).retries.get(WebhookRetryTiers[0].name) ?? [];
    if (copy === undefined) throw new Error('no copy planned');
    const record = retryCopyRecord(copy);
    expect(record.key).toBe('sub-a');
    expect(JSON.parse(String(record.value))).toEqual(copy.value);
    expect(record.headers).toEqual({
      [KafkaHeaders.dueAt]: String(NOW + 5_000),
      [KafkaHeaders.attempt]: '1',
      [KafkaHeaders.originTopic]: Topics.webhookDeliveries.name,
      [KafkaHeaders.lastError]: 'x'.repeat(1_024),
    });
  });

  it('wraps a delivery out of retries read from a status event: its coordinates, the deliveries topic as origin', () => {
    const [decision] = plan([failure(job('9', 6), 'HTTP 503')]).deadLetters;
    if (decision === undefined) throw new Error('no dead letter planned');
    const record = deadLetterRecord(decision, NOW);
    const letter = JSON.parse(String(record.value)) as DeadLetterV1;
    expect(letter).toEqual({
      sourceTopic: STATUS_SOURCE.topic,
      sourcePartition: 2,
      sourceOffset: '77',
      consumerGroup: ConsumerGroups.dispatcherDeliveries,
      key: 'sub-a',
      value: JSON.stringify(decision.value),
      valueEncoding: 'utf8',
      headers: {
        [KafkaHeaders.attempt]: '6',
        [KafkaHeaders.originTopic]: Topics.webhookDeliveries.name,
      },
      errorCode: 'RETRIES_EXHAUSTED',
      reason: 'HTTP 503',
      attempts: 6,
      failedAt: new Date(NOW).toISOString(),
    });
    expect(record.key).toBe(Topics.deadLetters.keyOf(letter));
    expect(JSON.parse(letter.value ?? '')).toMatchObject({ deliveryId: '9', attempt: 7 });
  });

  it('lists the records by topic: each tier planned, then the dead letters', () => {
    const records = planRecords(
      plan([failure(job('1', 1)), failure(job('2', 2)), failure(job('3', 6))]),
      NOW,
    );
    expect(records.map(([topic, list]) => [topic, list.length])).toEqual([
      [WebhookRetryTiers[0].name, 1],
      [WebhookRetryTiers[1].name, 1],
      [Topics.deadLetters.name, 1],
    ]);
  });
});

describe('DeliveryResultWriter', () => {
  function writer() {
    const steps: string[] = [];
    const published: [string, readonly RawRecord[]][] = [];
    const settled: DeliverySettlement[][] = [];
    const stamps: [readonly string[], ReadonlyMap<string, string>][] = [];
    const producer = {
      publishRaw: (topic: string, records: readonly RawRecord[]) => {
        steps.push(`publish ${topic}`);
        published.push([topic, records]);
        return Promise.resolve();
      },
    };
    const deliveries = {
      settle: (s: readonly DeliverySettlement[]) => {
        steps.push('settle');
        settled.push([...s]);
        return Promise.resolve();
      },
    };
    const subscribers = {
      stamp: (successes: readonly string[], failures: ReadonlyMap<string, string>) => {
        steps.push('stamp');
        stamps.push([successes, failures]);
        return Promise.resolve();
      },
    };
    const takedown = {
      takeDown: (t: { subscriberId: string; to: string }) => {
        steps.push(`takedown ${t.subscriberId} ${t.to}`);
        return Promise.resolve();
      },
    };
    const instance = new DeliveryResultWriter(
      producer as unknown as KafkaProducer,
      deliveries as unknown as DeliveriesRepository,
      subscribers as unknown as SubscribersRepository,
      takedown as unknown as SubscriberTakedown,
      loadConfig(DeliveriesConfig, {}),
      new PinoLogger({ pinoHttp: { level: 'silent' } }),
    );
    return { instance, steps, published, settled, stamps };
  }

  const context = { now: NOW, stopped: () => false };

  it('publishes first (in slices of 200), then settles, stamps and takes down, in that order', async () => {
    const w = writer();
    const batch: FinishedWebhookAttempt[] = [
      ...Array.from({ length: 450 }, (_, i) => failure(job(`f${i}`, 1))),
      { job: job('ok', 1, 'sub-b'), kind: 'attempted', result: { kind: 'delivered', status: 200 } },
      { job: job('gone', 1, 'sub-c'), kind: 'attempted', result: { kind: 'gone', status: 410 } },
    ];
    const planned = plan(batch);
    await w.instance.execute(planned, context);
    expect(w.published.map(([topic, records]) => [topic, records.length])).toEqual([
      [WebhookRetryTiers[0].name, 200],
      [WebhookRetryTiers[0].name, 200],
      [WebhookRetryTiers[0].name, 50],
    ]);
    expect(w.steps.slice(3)).toEqual(['settle', 'stamp', 'takedown sub-c DISABLED']);
    expect(w.settled).toEqual([planned.settlements]);
    expect(w.stamps).toEqual([[['sub-b'], new Map([['sub-a', 'HTTP 500']])]]);
  });

  it('stamps a subscriber’s success at most once a second', async () => {
    const w = writer();
    await w.instance.stamp(new Set(['sub-a', 'sub-b']), new Map(), NOW);
    await w.instance.stamp(new Set(['sub-a']), new Map(), NOW + 999);
    await w.instance.stamp(new Set(['sub-a']), new Map(), NOW + 1_000);
    expect(w.stamps.map(([successes]) => successes)).toEqual([['sub-a', 'sub-b'], [], ['sub-a']]);
  });
});
