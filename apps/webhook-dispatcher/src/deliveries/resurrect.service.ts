import { Injectable } from '@nestjs/common';
import { SubscriberAlertKind, Topics, SubscriberErrorCode } from '@ums/contracts';
import { ConflictError, KafkaProducer, type TenantFilter } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { FailureWindow } from '../subscribers/failure-window.service';
import { SubscriberDirectory } from '../subscribers/subscriber-directory.service';
import type { SubscriberRecord } from '../subscribers/subscriber.record';
import { SubscribersRepository } from '../subscribers/subscribers.repository';
import { subscriberNotFound } from '../subscribers/subscribers.service';
import { DeliveriesConfig } from './deliveries.config';
import { SubscriberReplay } from './subscriber-replay.service';

/**
 * Brings a dead (or disabled) subscriber back: it turns REPLAYING, which keeps new events as MISSED,
 * its failure window is cleared, an alert is published, and SubscriberReplay sends what it missed.
 */
@Injectable()
export class ResurrectService {
  constructor(
    private readonly subscribers: SubscribersRepository,
    private readonly directory: SubscriberDirectory,
    private readonly failures: FailureWindow,
    private readonly producer: KafkaProducer,
    private readonly replays: SubscriberReplay,
    private readonly config: DeliveriesConfig,
    private readonly logger: PinoLogger,
  ) {}

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
        SubscriberErrorCode.NotDead,
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
    this.replays.start(id);
    return (await this.subscribers.find(id, tenant)) ?? subscriber;
  }
}
