import { Module } from '@nestjs/common';
import { CreditsModule } from '../credits/credits.module';
import { ProvidersModule } from '../providers/providers.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { CampaignContentRepository } from './campaign-content.repository';
import { ClaimExpiryService } from './claim-expiry.service';
import { ContentRenderingService } from './content-rendering.service';
import { FinishedBatchRetentionService } from './finished-batch-retention.service';
import { MessageClaimsRepository } from './message-claims.repository';
import { ProviderExchangeService } from './provider-exchange.service';
import { RetryRoutingService } from './retry-routing.service';
import { RunCounterFoldingService } from './run-counter-folding.service';
import { RunStatesRepository } from './run-states.repository';
import { SendBatchService } from './send-batch.service';
import { SendBatchesConsumer } from './send-batches.consumer';
import { SendClaimsService } from './send-claims.service';
import { SendGrantsService } from './send-grants.service';
import { SendSettlementService } from './send-settlement.service';
import { SendSlicesService } from './send-slices.service';
import { SendingMetrics } from './sending.metrics';
import { StatusEventsPublisher } from './status-events.publisher';

/**
 * Sending: batches (campaign, priority, retry tiers) -> rate limit -> claim -> provider -> record,
 * with status events, claims that expire to UNKNOWN and the finished-batch inbox's retention.
 */
@Module({
  imports: [ProvidersModule, RateLimitModule, CreditsModule],
  controllers: [SendBatchesConsumer],
  providers: [
    MessageClaimsRepository,
    StatusEventsPublisher,
    ClaimExpiryService,
    RunCounterFoldingService,
    FinishedBatchRetentionService,
    CampaignContentRepository,
    RunStatesRepository,
    SendingMetrics,
    SendGrantsService,
    SendClaimsService,
    ContentRenderingService,
    ProviderExchangeService,
    RetryRoutingService,
    SendSettlementService,
    SendSlicesService,
    SendBatchService,
  ],
  exports: [MessageClaimsRepository, StatusEventsPublisher],
})
export class SendingModule {}
