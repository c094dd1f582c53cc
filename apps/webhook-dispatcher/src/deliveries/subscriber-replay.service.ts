import { randomBytes } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { REDIS_CLIENT, type RedisClient } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { SubscriberDirectory } from '../subscribers/subscriber-directory.service';
import { SubscribersRepository } from '../subscribers/subscribers.repository';
import { DeliveriesConfig } from './deliveries.config';
import { DeliveriesRepository } from './deliveries.repository';
import { ReplaySender } from './replay-sender.service';

const PAGE = 100;
const LOCK_MS = 30_000;

/**
 * The replay of a resurrected (REPLAYING) subscriber: its MISSED deliveries are sent in event order
 * (by id, ReplaySender); when none is left it turns ALIVE. A replay that keeps failing leaves it DEAD
 * again with its backlog intact. One replica replays a subscriber at a time (a Redis lock); a replay
 * cut short by a crash is resumed by any replica's sweeper once the lock has expired.
 */
@Injectable()
export class SubscriberReplay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly running = new Map<string, Promise<void>>();
  private stopping = false;

  constructor(
    private readonly subscribers: SubscribersRepository,
    private readonly directory: SubscriberDirectory,
    private readonly deliveries: DeliveriesRepository,
    private readonly sender: ReplaySender,
    private readonly config: DeliveriesConfig,
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

  /** Starts the subscriber's replay here unless one runs here already. */
  start(id: string): void {
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
      await this.replayPages(id, lockKey);
    } finally {
      if ((await this.redis.get(lockKey)) === token) await this.redis.del(lockKey);
    }
  }

  /** Sends the MISSED rows page by page under the lock, then turns the subscriber ALIVE. */
  private async replayPages(id: string, lockKey: string): Promise<void> {
    const stopped = (): boolean => this.stopping;
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
        await this.finish(id);
        return;
      }
      if (!(await this.sender.sendInOrder(id, page, stopped))) return;
      cursor = page[page.length - 1]?.id ?? cursor;
    }
  }

  /** Nothing MISSED is left: ALIVE again, and events stored MISSED meanwhile are sent too. */
  private async finish(id: string): Promise<void> {
    if (!(await this.subscribers.transition({ id, tenant: null, from: ['REPLAYING'], to: 'ALIVE' }))) return;
    await this.directory.reload();
    this.logger.info({ subscriberId: id }, 'Replay finished: subscriber alive');
    // Events stored as MISSED by a replica that had not yet seen ALIVE are picked up here.
    await sleep(2 * this.config.WEBHOOK_SUBSCRIBER_REFRESH_MS);
    const stragglers = await this.deliveries.missedAfter(id, '0', PAGE);
    if (stragglers.length > 0) await this.sender.sendInOrder(id, stragglers, () => this.stopping);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
