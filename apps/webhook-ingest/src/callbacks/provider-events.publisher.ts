import { Injectable } from '@nestjs/common';
import { type ProviderEventV1, Topics } from '@ums/contracts';
import { KafkaProducer } from '@ums/platform';

interface Waiting {
  readonly events: readonly ProviderEventV1[];
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

// Bounds one produce request: kafkajs encodes a few hundred events fastest per event (measured here).
const MAX_EVENTS_PER_PUBLISH = 500;

/**
 * Group commit for callbacks: the producer sends one request at a time (idempotent, acks=all), so
 * events of callbacks that arrive while a publish is in flight wait and go together in the next
 * one. A single callback waits for no timer; under load each publish carries many callbacks. Every
 * caller learns whether its own events were acknowledged (a failed publish fails all its callers).
 */
@Injectable()
export class ProviderEventsPublisher {
  private queue: Waiting[] = [];
  private flushing = false;

  constructor(private readonly producer: KafkaProducer) {}

  publish(events: readonly ProviderEventV1[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ events, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.take();
        try {
          await this.producer.publish(
            Topics.providerEvents,
            batch.flatMap((waiting) => waiting.events),
          );
          for (const waiting of batch) waiting.resolve();
        } catch (error: unknown) {
          for (const waiting of batch) waiting.reject(error);
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
}
