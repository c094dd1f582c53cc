import { Module } from '@nestjs/common';
import { CreditsModule } from '../credits/credits.module';
import { STATUS_API_PROVIDERS } from '../providers/status-apis';
import { ProvidersModule } from '../providers/providers.module';
import { TwilioMatchWindow } from '../providers/twilio.status-api';
import { SendingConfig } from '../sending/sending.config';
import { SendingModule } from '../sending/sending.module';
import { StatusUpdatesRepository } from '../status/status-updates.repository';
import { NotReceivedCredits } from './not-received-credits';
import { StatusRefreshLookups } from './status-refresh.lookups';
import { StatusRefreshMetrics } from './status-refresh.metrics';
import { StatusRefreshRepository } from './status-refresh.repository';
import { StatusRefreshService } from './status-refresh.service';
import { StatusRefreshSettler } from './status-refresh.settler';

/**
 * Status refresh: providers' status APIs (STATUS_API_TYPES) asked about UNKNOWN rows and SENT rows
 * without a callback, the answers settled through the status path. Needs StatusRefreshConfig and
 * SendingConfig in the app's configs.
 */
@Module({
  imports: [ProvidersModule, SendingModule, CreditsModule],
  providers: [
    ...STATUS_API_PROVIDERS,
    {
      // A send of an UNKNOWN row reached Twilio within its claim's window, or never.
      provide: TwilioMatchWindow,
      useFactory: (sending: SendingConfig): TwilioMatchWindow => ({
        matchWindowMs: sending.SENDER_CLAIM_TIMEOUT_MS,
      }),
      inject: [SendingConfig],
    },
    StatusUpdatesRepository,
    StatusRefreshRepository,
    StatusRefreshMetrics,
    NotReceivedCredits,
    StatusRefreshLookups,
    StatusRefreshSettler,
    StatusRefreshService,
  ],
  exports: [StatusRefreshService],
})
export class StatusRefreshModule {}
