import { Module } from '@nestjs/common';
import { ClaimExpiryService } from './claim-expiry.service';
import { MessageClaimsRepository } from './message-claims.repository';
import { StatusEventsPublisher } from './status-events.publisher';

/**
 * The exactly-once core of sending: claims, outcomes, status events, and claims that expire to
 * UNKNOWN. The batch consumer that drives it (claim -> rate limit -> provider -> record) comes next.
 */
@Module({
  providers: [MessageClaimsRepository, StatusEventsPublisher, ClaimExpiryService],
  exports: [MessageClaimsRepository, StatusEventsPublisher],
})
export class SendingModule {}
