import { Injectable } from '@nestjs/common';
import { SubscriberAlertKind, type SubscriberAlertV1, Topics } from '@ums/contracts';
import type { WebhookTakedown } from '@ums/domain';
import { errorMessage, KafkaProducer } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { SubscriberDirectory } from '../subscribers/subscriber-directory.service';
import { SubscribersRepository } from '../subscribers/subscribers.repository';
import { DeliveriesConfig } from './deliveries.config';
import { DeliveriesRepository } from './deliveries.repository';

/**
 * Takes a subscriber out of delivery: tombstoned (DEAD, failures over the threshold) or disabled
 * (DISABLED, it answered 410). Once per subscriber (a conditional transition from ALIVE or
 * REPLAYING): what still waits for a retry is kept as MISSED for a resurrect, an alert is published,
 * the change logged and the directory refreshed.
 */
@Injectable()
export class SubscriberTakedown {
  constructor(
    private readonly subscribers: SubscribersRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly directory: SubscriberDirectory,
    private readonly producer: KafkaProducer,
    private readonly config: DeliveriesConfig,
    private readonly logger: PinoLogger,
  ) {}

  async takeDown(takedown: WebhookTakedown): Promise<void> {
    const { subscriberId, to, failuresInWindow, lastError } = takedown;
    const known = this.directory.get(subscriberId);
    if (known === undefined) return;
    const changed = await this.subscribers.transition({
      id: subscriberId,
      tenant: null,
      from: ['ALIVE', 'REPLAYING'],
      to,
      lastError,
    });
    if (!changed) return;
    await this.deliveries.keepOwed(subscriberId);
    const kind = to === 'DEAD' ? SubscriberAlertKind.Tombstoned : SubscriberAlertKind.Disabled;
    const alert: SubscriberAlertV1 = {
      subscriberId,
      tenantId: known.record.tenantId,
      kind,
      failuresInWindow,
      windowMs: this.config.WEBHOOK_FAILURE_WINDOW_MS,
      lastError: lastError.slice(0, 1024),
      at: new Date().toISOString(),
    };
    await this.producer.publish(Topics.subscriberAlerts, [alert]);
    this.logger.warn(
      {
        subscriberId,
        tenantId: known.record.tenantId,
        kind,
        failuresInWindow,
        lastError: errorMessage(lastError),
      },
      to === 'DEAD'
        ? 'Subscriber tombstoned: no more attempts until it is resurrected'
        : 'Subscriber disabled (410 Gone)',
    );
    await this.directory.reload();
  }
}
