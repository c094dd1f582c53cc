import { ConsumerGroups, KafkaHeaders, Topics, WebhookRetryTiers } from '@ums/contracts';
import type { FinishedWebhookAttempt, WebhookAttemptResult, WebhookDeliveryJob } from './webhook-attempt';
import {
  planWebhookWriteBack,
  WEBHOOK_DELIVERY_ORIGIN,
  webhookFailureCounts,
  webhookTombstones,
  type WebhookWriteBackInput,
} from './webhook-write-back';

const DELAYS = [5_000, 30_000, 120_000, 600_000, 3_600_000];
const NOW = 1_700_000_000_000;
const POLICY = { threshold: 2, windowMs: 60_000 };
const STATUS_SOURCE = { topic: 't-1.ums.message.status.v1', partition: 3, offset: '42' };

function job(id: string, over: Partial<WebhookDeliveryJob> = {}): WebhookDeliveryJob {
  return {
    deliveryId: id,
    subscriberId: 'sub-a',
    eventId: `evt-${id}`,
    eventType: 'message.status',
    payload: '{"type":"message.status"}',
    attempt: 1,
    firstAttemptAt: '2024-01-01T00:00:00.000Z',
    ...over,
  };
}

const attempted = (
  j: WebhookDeliveryJob,
  result: WebhookAttemptResult,
  sharedRequest?: true,
): FinishedWebhookAttempt =>
  sharedRequest === undefined
    ? { job: j, kind: 'attempted', result }
    : { job: j, kind: 'attempted', result, sharedRequest };

const failed = (error = 'HTTP 500', over: Partial<WebhookAttemptResult> = {}): WebhookAttemptResult =>
  ({ kind: 'failed', status: 500, error, ...over }) as WebhookAttemptResult;

function plan(batch: readonly FinishedWebhookAttempt[], over: Partial<WebhookWriteBackInput> = {}) {
  return planWebhookWriteBack({
    batch,
    inWindow: new Map(),
    isAlive: () => true,
    policy: POLICY,
    retryDelaysMs: DELAYS,
    jitterRatio: 0,
    now: NOW,
    random: () => 0,
    ...over,
  });
}

describe('webhookFailureCounts', () => {
  it('counts one failure per failed request, nothing for successes, 410s or deliveries not attempted', () => {
    const shared = failed();
    const counts = webhookFailureCounts([
      attempted(job('1'), shared),
      attempted(job('2'), shared, true),
      attempted(job('3', { subscriberId: 'sub-b' }), failed()),
      attempted(job('4'), { kind: 'delivered', status: 200 }),
      attempted(job('5', { subscriberId: 'sub-c' }), { kind: 'gone', status: 410 }),
      { job: job('6', { subscriberId: 'sub-c' }), kind: 'spilled' },
      { job: job('7', { subscriberId: 'sub-c' }), kind: 'orphan' },
    ]);
    expect(counts).toEqual(
      new Map([
        ['sub-a', 1],
        ['sub-b', 1],
      ]),
    );
  });
});

describe('webhookTombstones', () => {
  it('takes down ALIVE subscribers over the threshold, with their last error or a default one', () => {
    const inWindow = new Map([
      ['over', 3],
      ['at', 2],
      ['over-dead', 9],
      ['over-too', 4],
    ]);
    const takedowns = webhookTombstones(
      inWindow,
      POLICY,
      (id) => id !== 'over-dead',
      new Map([['over-too', 'HTTP 503']]),
    );
    expect(takedowns).toEqual([
      { subscriberId: 'over', to: 'DEAD', failuresInWindow: 3, lastError: 'failures over the threshold' },
      { subscriberId: 'over-too', to: 'DEAD', failuresInWindow: 4, lastError: 'HTTP 503' },
    ]);
  });
});

describe('planWebhookWriteBack', () => {
  it('settles deliveries of deleted and not-ALIVE subscribers without an attempt counted', () => {
    const result = plan([
      { job: job('1', { attempt: 3 }), kind: 'orphan' },
      { job: job('2', { attempt: 2 }), kind: 'missed' },
    ]);
    expect(result.settlements).toEqual([
      { deliveryId: '1', state: 'DEAD_LETTERED', attempts: 2, error: 'SUBSCRIBER_DELETED' },
      { deliveryId: '2', state: 'MISSED', attempts: 1 },
    ]);
    expect(result.outcomes).toEqual(
      new Map([
        ['dead_lettered', 1],
        ['missed', 1],
      ]),
    );
    expect(result.retries.size).toBe(0);
    expect(result.deadLetters).toEqual([]);
    expect(result.takedowns).toEqual([]);
  });

  it('settles a delivered delivery with its status and stamps its subscriber', () => {
    const result = plan([attempted(job('1', { attempt: 2 }), { kind: 'delivered', status: 204 })]);
    expect(result.settlements).toEqual([
      { deliveryId: '1', state: 'DELIVERED', attempts: 2, statusCode: 204 },
    ]);
    expect(result.successes).toEqual(new Set(['sub-a']));
    expect(result.lastErrors.size).toBe(0);
    expect(result.outcomes).toEqual(new Map([['delivered', 1]]));
  });

  it('keeps a 410 as MISSED and disables its subscriber, before any tombstone', () => {
    const result = plan(
      [
        attempted(job('1', { subscriberId: 'sub-b' }), failed()),
        attempted(job('2'), { kind: 'gone', status: 410 }),
      ],
      { inWindow: new Map([['sub-b', 3]]) },
    );
    expect(result.settlements).toContainEqual({
      deliveryId: '2',
      state: 'MISSED',
      attempts: 1,
      statusCode: 410,
      error: 'HTTP 410',
    });
    expect(result.takedowns).toEqual([
      { subscriberId: 'sub-a', to: 'DISABLED', failuresInWindow: 0, lastError: 'HTTP 410 Gone' },
      { subscriberId: 'sub-b', to: 'DEAD', failuresInWindow: 3, lastError: 'HTTP 500' },
    ]);
    expect(result.outcomes.get('gone')).toBe(1);
  });

  it('sends a failed delivery to the tier of its attempt, its origin the deliveries topic', () => {
    const statusJob = job('1', { attempt: 2, source: STATUS_SOURCE });
    const result = plan([attempted(statusJob, failed('HTTP 500'))], { jitterRatio: 0.2, random: () => 0.5 });
    const dueAt = NOW + 30_000 + 3_000;
    expect([...result.retries.keys()]).toEqual([WebhookRetryTiers[1].name]);
    expect(result.retries.get(WebhookRetryTiers[1].name)).toEqual([
      {
        key: 'sub-a',
        value: {
          deliveryId: '1',
          subscriberId: 'sub-a',
          eventId: 'evt-1',
          eventType: 'message.status',
          payload: '{"type":"message.status"}',
          attempt: 3,
          firstAttemptAt: '2024-01-01T00:00:00.000Z',
        },
        forward: { dueAt, attempt: 2, originTopic: Topics.webhookDeliveries.name, lastError: 'HTTP 500' },
      },
    ]);
    expect(result.settlements).toEqual([
      {
        deliveryId: '1',
        state: 'RETRYING',
        attempts: 2,
        statusCode: 500,
        error: 'HTTP 500',
        nextAttemptAt: new Date(dueAt),
      },
    ]);
    expect(result.lastErrors).toEqual(new Map([['sub-a', 'HTTP 500']]));
    expect(result.outcomes).toEqual(new Map([['failed', 1]]));
    expect(result.deadLetters).toEqual([]);
  });

  it('honours Retry-After with a later tier, and counts a refused address as refused', () => {
    const result = plan([
      attempted(job('1'), failed('HTTP 429', { status: 429, retryAfterMs: 60_000 })),
      attempted(job('2', { subscriberId: 'sub-b' }), failed('ADDRESS_NOT_PUBLIC: x', { refused: true })),
    ]);
    expect(result.retries.get(WebhookRetryTiers[2].name)?.[0]?.forward.dueAt).toBe(NOW + 120_000);
    expect(result.retries.get(WebhookRetryTiers[0].name)?.[0]?.value.deliveryId).toBe('2');
    expect(result.outcomes).toEqual(
      new Map([
        ['failed', 1],
        ['refused', 1],
      ]),
    );
  });

  it('sends a spilled delivery to the first tier with its attempt kept, whatever its attempt', () => {
    const result = plan([{ job: job('1', { attempt: 4 }), kind: 'spilled' }]);
    const [copy] = result.retries.get(WebhookRetryTiers[0].name) ?? [];
    expect(copy?.value.attempt).toBe(4);
    expect(copy?.forward).toEqual({
      dueAt: NOW + 5_000,
      attempt: 3,
      originTopic: WEBHOOK_DELIVERY_ORIGIN,
      lastError: 'SUBSCRIBER_BACKLOGGED: too many deliveries waiting for this subscriber',
    });
    expect(result.settlements).toEqual([
      {
        deliveryId: '1',
        state: 'RETRYING',
        attempts: 3,
        statusCode: undefined,
        error: 'SUBSCRIBER_BACKLOGGED: too many deliveries waiting for this subscriber',
        nextAttemptAt: new Date(NOW + 5_000),
      },
    ]);
    // A backlog is not the subscriber failing: no failure stamp.
    expect(result.lastErrors.size).toBe(0);
    expect(result.outcomes).toEqual(new Map([['spilled', 1]]));
  });

  it('dead-letters a delivery out of retries: read from a status event, it goes back to the deliveries topic', () => {
    const result = plan([attempted(job('1', { attempt: 6, source: STATUS_SOURCE }), failed('HTTP 502'))]);
    expect(result.retries.size).toBe(0);
    expect(result.deadLetters).toEqual([
      {
        source: STATUS_SOURCE,
        key: 'sub-a',
        value: expect.objectContaining({ deliveryId: '1', attempt: 7 }),
        headers: {
          [KafkaHeaders.attempt]: '6',
          [KafkaHeaders.originTopic]: Topics.webhookDeliveries.name,
        },
        cause: {
          consumerGroup: ConsumerGroups.dispatcherDeliveries,
          errorCode: 'RETRIES_EXHAUSTED',
          reason: 'HTTP 502',
          attempts: 6,
        },
      },
    ]);
    expect(result.settlements).toEqual([
      { deliveryId: '1', state: 'DEAD_LETTERED', attempts: 6, statusCode: 500, error: 'HTTP 502' },
    ]);
    expect(result.outcomes).toEqual(
      new Map([
        ['failed', 1],
        ['dead_lettered', 1],
      ]),
    );
  });

  it('gives a dead letter of a delivery with no source the deliveries topic as its coordinates', () => {
    const [letter] = plan([attempted(job('1', { attempt: 6 }), failed())]).deadLetters;
    expect(letter?.source).toEqual({ topic: Topics.webhookDeliveries.name, partition: 0, offset: 'n/a' });
  });

  it('keeps the failures of a subscriber tombstoned by this batch, or not ALIVE, as MISSED', () => {
    const result = plan(
      [
        attempted(job('1', { attempt: 2 }), failed('TIMEOUT: slow', { status: undefined })),
        { job: job('2', { subscriberId: 'sub-dead', attempt: 3 }), kind: 'spilled' },
        attempted(job('3', { subscriberId: 'sub-ok' }), failed()),
      ],
      { inWindow: new Map([['sub-a', 3]]), isAlive: (id) => id !== 'sub-dead' },
    );
    expect(result.settlements).toEqual([
      { deliveryId: '1', state: 'MISSED', attempts: 2, statusCode: undefined, error: 'TIMEOUT: slow' },
      {
        deliveryId: '2',
        state: 'MISSED',
        attempts: 2,
        statusCode: undefined,
        error: 'SUBSCRIBER_BACKLOGGED: too many deliveries waiting for this subscriber',
      },
      expect.objectContaining({ deliveryId: '3', state: 'RETRYING' }),
    ]);
    expect([...result.retries.values()].flat().map((c) => c.value.deliveryId)).toEqual(['3']);
    expect(result.takedowns).toEqual([
      { subscriberId: 'sub-a', to: 'DEAD', failuresInWindow: 3, lastError: 'TIMEOUT: slow' },
    ]);
  });

  it('draws jitter once per failed request: its deliveries come due together', () => {
    const draws = [0.1, 0.9, 0.5];
    const random = jest.fn(() => draws.shift() ?? 0);
    const request = failed();
    const result = plan(
      [attempted(job('1'), request), attempted(job('2'), request, true), attempted(job('3'), failed())],
      { jitterRatio: 0.2, random },
    );
    expect(random).toHaveBeenCalledTimes(2);
    expect(result.retries.get(WebhookRetryTiers[0].name)?.map((c) => c.forward.dueAt)).toEqual([
      NOW + 5_100,
      NOW + 5_100,
      NOW + 5_900,
    ]);
  });
});
