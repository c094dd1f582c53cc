import { Module } from '@nestjs/common';
import { SubscribersModule } from '../subscribers/subscribers.module';
import { DeliveriesConsumer } from './deliveries.consumer';
import { DeliveriesController } from './deliveries.controller';
import { DeliveriesMetrics } from './deliveries.metrics';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveriesService } from './deliveries.service';
import { DeliveryDispatcher } from './delivery-dispatcher.service';
import { DeliveryResultWriter } from './delivery-result.writer';
import { DeliveryRetention } from './delivery-retention.service';
import { DeliveryWriteBack } from './delivery-write-back.service';
import { FanOutService } from './fan-out.service';
import { PendingSweeper } from './pending-sweeper.service';
import { ReplaySender } from './replay-sender.service';
import { ReplaySinceService } from './replay-since.service';
import { ResurrectService } from './resurrect.service';
import { SubscriberHttpClient } from './subscriber-http.client';
import { SubscriberProbe } from './subscriber-probe.service';
import { SubscriberReplay } from './subscriber-replay.service';
import { SubscriberTakedown } from './subscriber-takedown.service';

/** Fan-out of status and inbound events, signed attempts, retry tiers, dead letters, replay and resurrect. */
@Module({
  imports: [SubscribersModule],
  controllers: [DeliveriesController, DeliveriesConsumer],
  providers: [
    DeliveriesMetrics,
    DeliveriesRepository,
    DeliveriesService,
    DeliveryDispatcher,
    DeliveryResultWriter,
    DeliveryRetention,
    DeliveryWriteBack,
    FanOutService,
    PendingSweeper,
    ReplaySender,
    ReplaySinceService,
    ResurrectService,
    SubscriberHttpClient,
    SubscriberProbe,
    SubscriberReplay,
    SubscriberTakedown,
  ],
})
export class DeliveriesModule {}
