import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { type ProviderEventV1, Topics } from '@ums/contracts';
import { KafkaProducer } from '@ums/platform';
import { CallbacksConfig } from './callbacks.config';

interface Waiting {
  readonly events: readonly ProviderEventV1[];
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
  /** When its caller stops waiting (epoch ms). */
  readonly deadline: number;
  settled: boolean;
}

// Bounds one produce request: kafkajs encodes a few hundred events fastest per event (measured here).
const MAX_EVENTS_PER_PUBLISH = 500;
/** How often the deadlines are checked: a caller waits at most this much past its timeout. */
const WATCH_EVERY_MS = 100;

/**
 * Group commit for callbacks: the producer sends one request at a time (idempotent, acks=all), so
 * events of callbacks that arrive while a publish is in flight wait and go together in the next
 * one. A single callback waits for no timer; under load each publish carries many callbacks. Every
 * caller learns whether its own events were acknowledged (a failed publish fails all its callers),
 * or, after `INGEST_PUBLISH_TIMEOUT_MS`, that they were not: one watchdog timer for all of them
 * instead of a timer per callback (a measurable share of the ingest's CPU at thousands per second).
 * A caller that timed out while still queued is dropped from the queue; one whose request was
 * already sent may still land on the topic, a duplicate of the provider's retry that the consumer
 * absorbs.
 */
@Injectable()
export class ProviderEventsPublisher implements OnApplicationShutdown {
  private queue: Waiting[] = [];
  private inFlight: readonly Waiting[] = [];
  private flushing = false;
  private watchdog?: NodeJS.Timeout;

  constructor(
    private readonly producer: KafkaProducer,
    private readonly config: CallbacksConfig,
  ) {}

  publish(events: readonly ProviderEventV1[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const deadline = Date.now() + this.config.INGEST_PUBLISH_TIMEOUT_MS;
      this.queue.push({ events, resolve, reject, deadline, settled: false });
      this.watch();
      if (!this.flushing) void this.flush();
    });
  }

  onApplicationShutdown(): void {
    clearInterval(this.watchdog);
    this.watchdog = undefined;
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.take();
        this.inFlight = batch;
        try {
          await this.producer.publish(
            Topics.providerEvents,
            batch.flatMap((waiting) => waiting.events),
          );
          for (const waiting of batch) settle(waiting, undefined);
        } catch (error: unknown) {
          for (const waiting of batch) settle(waiting, error);
        } finally {
          this.inFlight = [];
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  /** The callbacks of the next publish: whole callbacks only, at least one, up to the event bound. */
  private take(): Waiting[] {
    let count = 0;
    let taken = 0;
    while (taken < this.queue.length) {
      const size = this.queue[taken]?.events.length ?? 0;
      if (taken > 0 && count + size > MAX_EVENTS_PER_PUBLISH) break;
      count += size;
      taken += 1;
    }
    const batch = this.queue.slice(0, taken);
    this.queue = this.queue.slice(taken);
    return batch;
  }

  private watch(): void {
    if (this.watchdog !== undefined) return;
    this.watchdog = setInterval(() => this.expire(), WATCH_EVERY_MS);
    this.watchdog.unref();
  }

  private expire(): void {
    const now = Date.now();
    const late = (waiting: Waiting): boolean => !waiting.settled && waiting.deadline <= now;
    if (this.queue.some(late) || this.inFlight.some(late)) {
      const error = new Error(`not acknowledged within ${this.config.INGEST_PUBLISH_TIMEOUT_MS} ms`);
      for (const waiting of this.inFlight) if (late(waiting)) settle(waiting, error);
      this.queue = this.queue.filter((waiting) => {
        if (!late(waiting)) return true;
        settle(waiting, error);
        return false;
      });
    }
    if (this.queue.length === 0 && this.inFlight.length === 0) {
      clearInterval(this.watchdog);
      this.watchdog = undefined;
    }
  }
}

function settle(waiting: Waiting, error: unknown): void {
  if (waiting.settled) return;
  waiting.settled = true;
  if (error === undefined) waiting.resolve();
  else waiting.reject(error);
}
