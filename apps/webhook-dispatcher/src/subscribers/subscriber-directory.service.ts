import type { KeyObject } from 'node:crypto';
import { Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { subscriberMatches, type WebhookEventFacts, webhookSecretKey } from '@ums/domain';
import { SecretBox } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { DeliveriesConfig } from '../deliveries/deliveries.config';
import type { SubscriberRecord, SubscriberState } from './subscriber.record';
import { SubscribersRepository } from './subscribers.repository';

/** A subscriber as the hot path needs it: its record and the keys that sign right now. */
export interface KnownSubscriber {
  readonly record: SubscriberRecord;
  /** Current secret first; the previous one while its grace period lasts. */
  readonly keys: readonly KeyObject[];
}

/**
 * Every subscriber in memory, re-read every WEBHOOK_SUBSCRIBER_REFRESH_MS (and at once after a change
 * made through this replica), so fan-out never queries per event. Secrets are opened once per load.
 */
@Injectable()
export class SubscriberDirectory implements OnModuleInit, OnApplicationShutdown {
  private byId = new Map<string, KnownSubscriber>();
  private timer?: NodeJS.Timeout;
  private loading?: Promise<void>;

  constructor(
    private readonly repository: SubscribersRepository,
    private readonly box: SecretBox,
    private readonly config: DeliveriesConfig,
    private readonly logger: PinoLogger,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.reload();
    this.timer = setInterval(() => {
      this.reload().catch((error: unknown) => this.logger.warn({ err: error }, 'Subscriber refresh failed'));
    }, this.config.WEBHOOK_SUBSCRIBER_REFRESH_MS);
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  get(id: string): KnownSubscriber | undefined {
    return this.byId.get(id);
  }

  /** Subscribers (any state but DISABLED) whose filter takes the event. */
  matching(event: WebhookEventFacts): KnownSubscriber[] {
    const out: KnownSubscriber[] = [];
    for (const subscriber of this.byId.values()) {
      if (subscriber.record.state === 'DISABLED') continue;
      const { record } = subscriber;
      if (
        subscriberMatches(
          { tenantId: record.tenantId, eventTypes: record.eventTypes, campaignId: record.campaignId },
          event,
        )
      )
        out.push(subscriber);
    }
    return out;
  }

  idsInState(state: SubscriberState): string[] {
    return [...this.byId.values()].filter((s) => s.record.state === state).map((s) => s.record.id);
  }

  countsByState(): Record<SubscriberState, number> {
    const counts: Record<SubscriberState, number> = { ALIVE: 0, DEAD: 0, DISABLED: 0, REPLAYING: 0 };
    for (const { record } of this.byId.values()) counts[record.state]++;
    return counts;
  }

  /** Re-reads now; concurrent callers share one load. */
  reload(): Promise<void> {
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async load(): Promise<void> {
    const records = await this.repository.all();
    const now = Date.now();
    const next = new Map<string, KnownSubscriber>();
    for (const record of records) {
      const keys = [webhookSecretKey(this.box.open(record.sealedSecret))];
      if (
        record.sealedPreviousSecret !== null &&
        record.previousSecretExpiresAt !== null &&
        record.previousSecretExpiresAt.getTime() > now
      ) {
        keys.push(webhookSecretKey(this.box.open(record.sealedPreviousSecret)));
      }
      next.set(record.id, { record, keys });
    }
    this.byId = next;
  }
}
