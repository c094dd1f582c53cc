import { randomBytes } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { SubscriberAlertKind, Topics } from '@ums/contracts';
import { webhookBatchLength } from '@ums/domain';
import {
  ConflictError,
  KafkaProducer,
  REDIS_CLIENT,
  type RedisClient,
  type TenantFilter,
} from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { FailureWindow } from '../subscribers/failure-window.service';
import { SubscriberDirectory } from '../subscribers/subscriber-directory.service';
import type { SubscriberRecord } from '../subscribers/subscriber.record';
import { SubscribersRepository } from '../subscribers/subscribers.repository';
import { subscriberNotFound } from '../subscribers/subscribers.service';
import { DeliveriesConfig } from './deliveries.config';
import { DeliveriesMetrics } from './deliveries.metrics';
import { DeliveriesRepository } from './deliveries.repository';
import type { DeliveryRecord } from './delivery.record';
import { SubscriberHttpClient } from './subscriber-http.client';

const PAGE = 100;
const LOCK_MS = 30_000;

/**
 * Brings a dead (or disabled) subscriber back: it turns REPLAYING, which keeps new events as MISSED,
 * and its MISSED deliveries are sent in event order (by id), one request at a time (a batch subscriber
 * gets consecutive ones in one batch); when none is left it
 * turns ALIVE. A replay that keeps failing leaves it DEAD again with its backlog intact. One replica
 * replays a subscriber at a time (a Redis lock); a replay cut short by a crash is resumed by any
 * replica's sweeper once the lock has expired.
 */
@Injectable()
export class ResurrectService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly running = new Map<string, Promise<void>>();
  private stopping = false;

  constructor(
    private readonly subscribers: SubscribersRepository,
    private readonly directory: SubscriberDirectory,
    private readonly deliveries: DeliveriesRepository,
    private readonly client: SubscriberHttpClient,
    private readonly failures: FailureWindow,
    private readonly producer: KafkaProducer,
    private readonly config: DeliveriesConfig,
    private readonly metrics: DeliveriesMetrics,
    private readonly logger: PinoLogger,
    @Inject(REDIS_CLIENT) private readonly redis: RedisClient,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const subscriber of await this.subscribers.all()) {
      if (subscriber.state === 'REPLAYING') this.start(subscriber.id);
    }
  }

  /**
   * Picks up replays whose replica died (REPLAYING with no replay running here); the Redis lock
   * keeps a replay that is alive elsewhere from being run twice.
   */
  resumeStalled(): void {
    if (this.stopping) return;
    for (const id of this.directory.idsInState('REPLAYING')) this.start(id);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.running.values());
  }

  /** Within `tenant` (null: any tenant's, for operators and the probe); another tenant's is not found. */
  async resurrect(id: string, tenant: TenantFilter): Promise<SubscriberRecord> {
    const subscriber = await this.subscribers.find(id, tenant);
    if (subscriber === undefined) throw subscriberNotFound(id);
    const changed = await this.subscribers.transition({
      id,
      tenant,
      from: ['DEAD', 'DISABLED'],
      to: 'REPLAYING',
    });
    if (!changed) {
      throw new ConflictError(
        'SUBSCRIBER_NOT_DEAD',
        `Subscriber ${id} is ${subscriber.state}; only DEAD or DISABLED subscribers can be resurrected`,
      );
    }
    await this.failures.clear(id);
    await this.producer.publish(Topics.subscriberAlerts, [
      {
        subscriberId: id,
        tenantId: subscriber.tenantId,
        kind: SubscriberAlertKind.Resurrected,
        failuresInWindow: 0,
        windowMs: this.config.WEBHOOK_FAILURE_WINDOW_MS,
        at: new Date().toISOString(),
      },
    ]);
    this.logger.info({ subscriberId: id }, 'Subscriber resurrected: replaying what it missed');
    await this.directory.reload();
    this.start(id);
    return (await this.subscribers.find(id, tenant)) ?? subscriber;
  }

  private start(id: string): void {
    if (this.running.has(id)) return;
    const run = this.replay(id)
      .catch((error: unknown) =>
        this.logger.error({ err: error, subscriberId: id }, 'Replay failed; resumes at restart'),
      )
      .finally(() => this.running.delete(id));
    this.running.set(id, run);
  }

  private async replay(id: string): Promise<void> {
    const lockKey = `ums:webhook:replay:${id}`;
    const token = randomBytes(8).toString('hex');
    if ((await this.redis.set(lockKey, token, 'PX', LOCK_MS, 'NX')) !== 'OK') return; // another replica has it
    try {
      let cursor = '0';
      for (;;) {
        if (this.stopping) return;
        await this.redis.pexpire(lockKey, LOCK_MS);
        const page = await this.deliveries.missedAfter(id, cursor, PAGE);
        if (page.length === 0 && cursor !== '0') {
          // Rows below the cursor can turn MISSED meanwhile (a retry consumed while replaying): one more pass.
          cursor = '0';
          continue;
        }
        if (page.length === 0) {
          if (await this.subscribers.transition({ id, tenant: null, from: ['REPLAYING'], to: 'ALIVE' })) {
            await this.directory.reload();
            this.logger.info({ subscriberId: id }, 'Replay finished: subscriber alive');
            // Events stored as MISSED by a replica that had not yet seen ALIVE are picked up here.
            await sleep(2 * this.config.WEBHOOK_SUBSCRIBER_REFRESH_MS);
            const stragglers = await this.deliveries.missedAfter(id, '0', PAGE);
            if (stragglers.length > 0) await this.sendInOrder(id, stragglers);
          }
          return;
        }
        const ok = await this.sendInOrder(id, page);
        if (!ok) return;
        cursor = page[page.length - 1]?.id ?? cursor;
      }
    } finally {
      if ((await this.redis.get(lockKey)) === token) await this.redis.del(lockKey);
    }
  }

  /**
   * Sends rows in order, one per request (or, for a batch subscriber, consecutive rows together as one
   * batch); false (and the subscriber DEAD again) when one request keeps failing.
   */
  private async sendInOrder(id: string, rows: readonly DeliveryRecord[]): Promise<boolean> {
    const subscriber = this.directory.get(id);
    // Unsigned, nothing is sent: the replay stays REPLAYING and the sweeper resumes it until the
    // secret opens again (the directory reports it).
    if (subscriber === undefined || subscriber.secretUnreadable !== undefined) return false;
    const perRequest = subscriber.record.maxEventsPerRequest;
    for (let at = 0; at < rows.length;) {
      const rest = rows.slice(at);
      const unit = rest.slice(
        0,
        webhookBatchLength(rest, perRequest, (row) => row),
      );
      at += unit.length;
      let lastError = '';
      let delivered = false;
      for (let attempt = 1; attempt <= this.config.WEBHOOK_REPLAY_ATTEMPTS && !this.stopping; attempt++) {
        const endTimer = this.metrics.latency.startTimer();
        const result = await this.client.postEvents(subscriber, unit, perRequest > 1);
        endTimer();
        if (result.kind === 'delivered') {
          await this.deliveries.settle(
            unit.map((row) => ({
              deliveryId: row.id,
              state: 'DELIVERED',
              attempts: row.attempts + attempt,
              statusCode: result.status,
            })),
          );
          this.metrics.deliveries.inc({ outcome: 'delivered' }, unit.length);
          delivered = true;
          break;
        }
        lastError = result.kind === 'gone' ? 'HTTP 410' : result.error;
        this.metrics.deliveries.inc({ outcome: 'failed' }, unit.length);
        if (result.kind === 'gone') break;
        await sleep(Math.min(this.config.WEBHOOK_RETRY_DELAYS_MS[0] ?? 5_000, 1_000 * 2 ** (attempt - 1)));
      }
      if (!delivered) {
        if (this.stopping) return false;
        await this.subscribers.transition({
          id,
          tenant: null,
          from: ['REPLAYING'],
          to: 'DEAD',
          lastError: `replay stopped: ${lastError}`,
        });
        await this.directory.reload();
        this.logger.warn(
          { subscriberId: id, deliveryId: unit[0]?.id, lastError },
          'Replay failed: subscriber dead again',
        );
        return false;
      }
    }
    return true;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
