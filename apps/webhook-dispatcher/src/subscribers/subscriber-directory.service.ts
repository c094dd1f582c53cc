import type { KeyObject } from 'node:crypto';
import { Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { subscriberMatches, type WebhookEventFacts, webhookSecretKey } from '@ums/domain';
import { CodedError, SecretBox } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { type ErrorCode, SecretErrorCode } from '@ums/contracts';
import { DeliveriesConfig } from '../deliveries/deliveries.config';
import type { SubscriberRecord, SubscriberState } from './subscriber.record';
import { SubscribersMetrics } from './subscribers.metrics';
import { SubscribersRepository } from './subscribers.repository';

/** A subscriber as the hot path needs it: its record and the keys that sign right now. */
export interface KnownSubscriber {
  readonly record: SubscriberRecord;
  /** Current secret first; the previous one while its grace period lasts. Empty when unreadable. */
  readonly keys: readonly KeyObject[];
  /**
   * Set when this replica cannot open the subscriber's current secret (the SecretBox's code, e.g.
   * SECRET_KEY_UNKNOWN): nothing can be signed for it, so nothing is sent to it until it opens again.
   */
  readonly secretUnreadable?: string;
}

/** What opening a record's secrets gave: the subscriber, and the codes of the secrets that did not open. */
interface Opened {
  readonly known: KnownSubscriber;
  readonly previousUnreadable?: string;
}

/**
 * Every subscriber in memory, re-read every WEBHOOK_SUBSCRIBER_REFRESH_MS (and at once after a change
 * made through this replica), so fan-out never queries per event, and indexed by tenant, so an event
 * is matched against its tenant's subscribers only. Secrets are opened once per load. A secret that
 * does not open (sealed under a key no longer in SECRETS_KEYS, or altered) takes only its subscriber
 * out of delivery: logged once (the SecretBox's code, never the secret), counted in
 * `ums_webhook_subscribers_secret_unreadable`, and back as soon as a load opens it again.
 */
@Injectable()
export class SubscriberDirectory implements OnModuleInit, OnApplicationShutdown {
  private byId = new Map<string, KnownSubscriber>();
  private byTenant = new Map<string, KnownSubscriber[]>();
  /** Subscribers whose secret did not open at the last load: `current:<code>` or `previous:<code>`. */
  private unreadable = new Map<string, string>();
  private timer?: NodeJS.Timeout;
  private loading?: Promise<void>;
  /** The load that starts once the one in flight ends, for callers that came during it. */
  private nextLoad?: Promise<void>;

  constructor(
    private readonly repository: SubscribersRepository,
    private readonly box: SecretBox,
    private readonly config: DeliveriesConfig,
    private readonly metrics: SubscribersMetrics,
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

  /** The event's tenant's subscribers (any state but DISABLED) whose filter takes the event. */
  matching(event: WebhookEventFacts): KnownSubscriber[] {
    const out: KnownSubscriber[] = [];
    for (const subscriber of this.byTenant.get(event.tenantId) ?? []) {
      const { record } = subscriber;
      if (record.state === 'DISABLED') continue;
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

  /** Re-reads now; concurrent callers share one load (one in flight may have read before the call). */
  reload(): Promise<void> {
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  /**
   * Re-reads in a load that starts after this call, for an API change the caller answers next: a load
   * already in flight may have read the table before the change, so the caller waits for one more
   * after it. Callers arriving meanwhile share that next load.
   */
  reloadAfterChange(): Promise<void> {
    if (this.loading === undefined) return this.reload();
    this.nextLoad ??= this.loading
      .catch(() => undefined)
      .then(() => {
        this.nextLoad = undefined;
        return this.reload();
      });
    return this.nextLoad;
  }

  private async load(): Promise<void> {
    const records = await this.repository.all();
    const now = Date.now();
    const byId = new Map<string, KnownSubscriber>();
    const byTenant = new Map<string, KnownSubscriber[]>();
    const unreadable = new Map<string, string>();
    let unsignable = 0;
    for (const record of records) {
      const { known, previousUnreadable } = this.open(record, now);
      byId.set(record.id, known);
      const tenant = byTenant.get(record.tenantId);
      if (tenant === undefined) byTenant.set(record.tenantId, [known]);
      else tenant.push(known);
      if (known.secretUnreadable !== undefined) {
        unsignable++;
        unreadable.set(record.id, `current:${known.secretUnreadable}`);
      } else if (previousUnreadable !== undefined) {
        unreadable.set(record.id, `previous:${previousUnreadable}`);
      }
      this.reportChange(known, unreadable.get(record.id));
    }
    this.byId = byId;
    this.byTenant = byTenant;
    this.unreadable = unreadable;
    this.metrics.secretUnreadable.set(unsignable);
  }

  /** The record with its signing keys; a secret that does not open is left out and reported by code. */
  private open(record: SubscriberRecord, now: number): Opened {
    let current: KeyObject;
    try {
      current = webhookSecretKey(this.box.open(record.sealedSecret));
    } catch (error: unknown) {
      return { known: { record, keys: [], secretUnreadable: unreadableCode(error) } };
    }
    if (
      record.sealedPreviousSecret === null ||
      record.previousSecretExpiresAt === null ||
      record.previousSecretExpiresAt.getTime() <= now
    ) {
      return { known: { record, keys: [current] } };
    }
    try {
      return {
        known: { record, keys: [current, webhookSecretKey(this.box.open(record.sealedPreviousSecret))] },
      };
    } catch (error: unknown) {
      // Signed with the current secret alone: a verifier still on the previous one fails until it updates.
      return { known: { record, keys: [current] }, previousUnreadable: unreadableCode(error) };
    }
  }

  /** Logs a subscriber's secret turning unreadable, or readable again, once per change (not per load). */
  private reportChange(known: KnownSubscriber, trouble: string | undefined): void {
    const before = this.unreadable.get(known.record.id);
    if (before === trouble) return;
    const context = { subscriberId: known.record.id, tenantId: known.record.tenantId };
    const [which, code] = trouble?.split(':') ?? [];
    if (trouble === undefined) {
      this.logger.info(
        { ...context, was: before },
        before?.startsWith('current:') === true
          ? 'Subscriber secret readable again: deliveries resume'
          : 'Subscriber previous secret readable again or expired',
      );
    } else if (which === 'previous') {
      this.logger.warn(
        { ...context, code },
        'Subscriber previous secret unreadable: signing with the current secret only',
      );
    } else {
      this.logger.error(
        { ...context, code },
        'Subscriber secret unreadable (not opened by any key of SECRETS_KEYS): nothing is sent to it ' +
          'until the key is back or its secret is rotated; its deliveries wait on the retry tiers',
      );
    }
  }
}

/** Why a secret did not open: the SecretBox's code (SECRET_KEY_UNKNOWN, ...), never the secret. */
function unreadableCode(error: unknown): ErrorCode {
  return error instanceof CodedError ? error.code : SecretErrorCode.Invalid;
}
