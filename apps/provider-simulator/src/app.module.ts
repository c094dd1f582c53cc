import { Module } from '@nestjs/common';
import { PlatformModule } from '@ums/platform';
import { CallbacksConfig } from './callbacks/callbacks.config';
import { CallbacksModule } from './callbacks/callbacks.module';
import { CredentialsConfig } from './credentials/credentials.config';
import { CredentialsModule } from './credentials/credentials.module';
import { InboundModule } from './inbound/inbound.module';
import { MittoModule } from './mitto/mitto.module';
import { NativeModule } from './native/native.module';
import { RecordsConfig } from './records/records.config';
import { SendingConfig } from './sending/sending.config';
import { SesModule } from './ses/ses.module';
import { StatsConfig } from './stats/stats.config';
import { StatsModule } from './stats/stats.module';
import { TwilioModule } from './twilio/twilio.module';
import { WhatsAppModule } from './whatsapp/whatsapp.module';

/**
 * Root module of provider-simulator: provider routes (WhatsApp Cloud, Twilio, SES v2, Mitto,
 * native), the admin API under /_sim, status callbacks and recipients' replies. No Kafka, MySQL or Redis.
 */
@Module({
  imports: [
    PlatformModule.forService({
      service: 'provider-simulator',
      kafka: false,
      mysql: false,
      redis: false,
      configs: [CredentialsConfig, StatsConfig, CallbacksConfig, SendingConfig, RecordsConfig],
      // Thousands of sends a second: no request context tracking every promise (see RequestLogMode).
      requestLogs: 'hook',
    }),
    CredentialsModule,
    StatsModule,
    CallbacksModule,
    InboundModule,
    WhatsAppModule,
    TwilioModule,
    SesModule,
    MittoModule,
    NativeModule,
  ],
})
export class ProviderSimulatorModule {}
