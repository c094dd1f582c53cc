import { type ProviderEventV1, Topics } from '@ums/contracts';
import type { KafkaProducer } from '@ums/platform';
import { CallbacksConfig } from './callbacks.config';
import { ProviderEventsPublisher } from './provider-events.publisher';

/** A producer whose publishes complete only when the test says so. */
class HeldProducer {
  readonly calls: { topic: string; eventIds: string[]; done: (error?: Error) => void }[] = [];

  publish(topic: { name: string }, values: readonly ProviderEventV1[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.calls.push({
        topic: topic.name,
        eventIds: values.map((v) => v.eventId),
        done: (error) => (error === undefined ? resolve() : reject(error)),
      });
    });
  }
}

function event(eventId: string): ProviderEventV1 {
  return { eventId } as ProviderEventV1;
}

function publisherWith(producer: HeldProducer, timeoutMs: number): ProviderEventsPublisher {
  const config = new CallbacksConfig();
  config.INGEST_PUBLISH_TIMEOUT_MS = timeoutMs;
  return new ProviderEventsPublisher(producer as unknown as KafkaProducer, config);
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('ProviderEventsPublisher', () => {
  afterEach(() => jest.useRealTimers());

  it('sends the first callback at once and the ones arriving meanwhile together in the next request', async () => {
    const producer = new HeldProducer();
    const publisher = publisherWith(producer, 5_000);
    const first = publisher.publish([event('a')]);
    const second = publisher.publish([event('b'), event('c')]);
    const third = publisher.publish([event('d')]);
    await tick();
    expect(producer.calls.map((c) => c.eventIds)).toEqual([['a']]);
    producer.calls[0]?.done();
    await first;
    await tick();
    expect(producer.calls.map((c) => c.eventIds)).toEqual([['a'], ['b', 'c', 'd']]);
    expect(producer.calls[1]?.topic).toBe(Topics.providerEvents.name);
    producer.calls[1]?.done();
    await expect(Promise.all([second, third])).resolves.toEqual([undefined, undefined]);
    publisher.onApplicationShutdown();
  });

  it('fails every caller of a failed request, and only those', async () => {
    const producer = new HeldProducer();
    const publisher = publisherWith(producer, 5_000);
    const first = publisher.publish([event('a')]);
    const second = publisher.publish([event('b')]);
    await tick();
    producer.calls[0]?.done(new Error('broker gone'));
    await expect(first).rejects.toThrow('broker gone');
    await tick();
    producer.calls[1]?.done();
    await expect(second).resolves.toBeUndefined();
    publisher.onApplicationShutdown();
  });

  it('rejects callers after the timeout, in flight or queued, and never sends the queued ones', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const producer = new HeldProducer();
    const publisher = publisherWith(producer, 1_000);
    const inFlight = publisher.publish([event('a')]);
    const queued = publisher.publish([event('b')]);
    const outcomes = [inFlight, queued].map((p) => p.then(() => 'ok').catch((e: Error) => e.message));
    await tick();
    jest.advanceTimersByTime(900);
    await tick();
    // Not yet late: nothing settled.
    let settled = false;
    void Promise.race(outcomes).then(() => (settled = true));
    await tick();
    expect(settled).toBe(false);
    jest.advanceTimersByTime(200);
    expect(await Promise.all(outcomes)).toEqual([
      'not acknowledged within 1000 ms',
      'not acknowledged within 1000 ms',
    ]);
    // The request in flight answering late changes nothing, and the dropped callback is not sent.
    producer.calls[0]?.done();
    await tick();
    expect(producer.calls.map((c) => c.eventIds)).toEqual([['a']]);
    publisher.onApplicationShutdown();
  });
});
