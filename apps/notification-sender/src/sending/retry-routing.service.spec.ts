import { Channel, KafkaHeaders, type MessageBatchV1, SendLane, SendRetryTiers, Topics } from '@ums/contracts';
import { type ConsumedMessage, type KafkaProducer, loadConfig, type RawRecord } from '@ums/platform';
import { RetryRoutingService, SENDER_GROUP } from './retry-routing.service';
import { SEND_RETRY_JITTER_RATIO } from './send-tuning.constants';
import { SendingConfig } from './sending.config';

const token = '0123456789abcdef';
const first = { messageId: '1', recipient: '+15550001' };
const second = { messageId: '2', recipient: '+15550002' };

function routing(env: Record<string, string> = {}): {
  service: RetryRoutingService;
  published: { topic: string; record: RawRecord }[];
} {
  const published: { topic: string; record: RawRecord }[] = [];
  const producer = {
    publishRaw: (topic: string, records: readonly RawRecord[]): Promise<void> => {
      for (const record of records) published.push({ topic, record });
      return Promise.resolve();
    },
  };
  const config = loadConfig(SendingConfig, env);
  return { service: new RetryRoutingService(producer as unknown as KafkaProducer, config), published };
}

function consumed(
  lane: SendLane,
  from: { topic: string; attempt: number; headers?: Record<string, string> },
): ConsumedMessage<MessageBatchV1> {
  return {
    value: {
      batchId: 'b-1~t0~abcdefgh',
      lane,
      tenantId: 't',
      campaignId: 'camp',
      runId: '7',
      seq: 3,
      leaseEpoch: 0,
      credentialId: 'cred',
      channel: Channel.Sms,
      items: [first, second],
      createdAt: '2026-01-01T00:00:00.000Z',
    },
    key: 'camp',
    topic: from.topic,
    partition: 2,
    offset: '41',
    headers: from.headers ?? {},
    attempt: from.attempt,
  };
}

describe('RetryRoutingService', () => {
  it('scales the tier delays by SENDER_RETRY_DELAY_PERCENT, and takes the jitter of the sender', () => {
    const { service } = routing({ SENDER_RETRY_DELAY_PERCENT: '10' });
    expect(service.tierDelaysMs).toEqual(SendRetryTiers.map((tier) => Math.round((tier.delayMs ?? 0) / 10)));
    expect(service.jitterRatio).toBe(SEND_RETRY_JITTER_RATIO);
  });

  it('puts the items of each tier in one partial-retry record naming the origin topic of the batch', async () => {
    const { service, published } = routing();
    const message = consumed(SendLane.Bulk, { topic: Topics.batches.name, attempt: 0 });
    await service.route(
      message,
      token,
      new Map([
        [0, { items: [first], dueAt: 5_000, lastError: 'HTTP_503' }],
        [2, { items: [second], dueAt: 9_000, lastError: 'x'.repeat(2_000) }],
      ]),
      [],
    );
    expect(published.map((p) => p.topic)).toEqual([SendRetryTiers[0].name, SendRetryTiers[2].name]);
    const value = JSON.parse(String(published[1]?.record.value)) as MessageBatchV1;
    expect(value).toMatchObject({ batchId: 'b-1~t2~01234567', items: [second], runId: '7', seq: 3 });
    expect(published[1]?.record.headers).toEqual({
      [KafkaHeaders.dueAt]: '9000',
      [KafkaHeaders.attempt]: '3',
      [KafkaHeaders.originTopic]: Topics.batches.name,
      [KafkaHeaders.lastError]: 'x'.repeat(1_024),
      [KafkaHeaders.partialRetry]: '1',
    });
  });

  it('keeps the origin a retry tier names, and trusts no origin header on other topics', async () => {
    const { service, published } = routing();
    const retry = new Map([[0, { items: [], dueAt: 1, lastError: 'e' }]]);
    const headers = { [KafkaHeaders.originTopic]: 'elsewhere' };
    await service.route(
      consumed(SendLane.Bulk, { topic: SendRetryTiers[0].name, attempt: 1, headers }),
      token,
      retry,
      [],
    );
    await service.route(
      consumed(SendLane.Priority, { topic: Topics.prioritySends.name, attempt: 0, headers }),
      token,
      retry,
      [],
    );
    expect(published.map((p) => p.record.headers?.[KafkaHeaders.originTopic])).toEqual([
      'elsewhere',
      Topics.prioritySends.name,
    ]);
  });

  it('offers contended messages again on the first tier', async () => {
    const { service, published } = routing({ SENDER_RETRY_DELAY_PERCENT: '100' });
    const before = Date.now();
    const message = consumed(SendLane.Bulk, { topic: Topics.batches.name, attempt: 0 });
    await service.retryContended(message, token, message.value.items.slice(0, 1));
    expect(published).toHaveLength(1);
    expect(published[0]?.topic).toBe(SendRetryTiers[0].name);
    const headers = published[0]?.record.headers ?? {};
    expect(Number(headers[KafkaHeaders.dueAt])).toBeGreaterThanOrEqual(
      before + (SendRetryTiers[0].delayMs ?? 0),
    );
    expect(headers[KafkaHeaders.lastError]).toBe('CLAIM_CONTENDED: row locked at claim time');
  });

  it('dead-letters exhausted items together, with the most attempts and every reason', async () => {
    const { service, published } = routing();
    const message = consumed(SendLane.Bulk, { topic: Topics.batches.name, attempt: 0 });
    await service.route(message, token, new Map(), [
      { item: first, attempts: 4, error: 'HTTP_503' },
      { item: second, attempts: 5, error: 'HTTP_500: down' },
    ]);
    expect(published.map((p) => p.topic)).toEqual([Topics.deadLetters.name]);
    const letter = JSON.parse(String(published[0]?.record.value)) as Record<string, unknown>;
    expect(letter).toMatchObject({
      sourceTopic: Topics.batches.name,
      sourcePartition: 2,
      sourceOffset: '41',
      consumerGroup: SENDER_GROUP,
      errorCode: 'RETRIES_EXHAUSTED',
      reason: '1: HTTP_503\n2: HTTP_500: down',
      attempts: 5,
    });
    expect((JSON.parse(String(letter['value'])) as MessageBatchV1).items).toEqual([first, second]);
  });

  it('publishes nothing when nothing is retried or exhausted', async () => {
    const { service, published } = routing();
    await service.route(
      consumed(SendLane.Bulk, { topic: Topics.batches.name, attempt: 0 }),
      token,
      new Map(),
      [],
    );
    expect(published).toEqual([]);
  });
});
