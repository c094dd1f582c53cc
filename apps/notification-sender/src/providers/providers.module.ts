import { Module } from '@nestjs/common';
import { ProviderEndpointsModule, SecretsModule } from '@ums/platform';
import { CredentialConcurrency } from './credential-concurrency';
import { CredentialLoader } from './credential-loader.service';
import { CredentialsRepository } from './credentials.repository';
import { MittoAdapter } from './mitto.adapter';
import { ProviderHttpClient } from './provider-http.client';
import { ProviderRegistry } from './provider-registry.service';
import { ProvidersMetrics } from './providers.metrics';
import { SesAdapter } from './ses.adapter';
import { SimulatorAdapter } from './simulator.adapter';
import { TwilioAdapter } from './twilio.adapter';
import { WhatsAppCloudAdapter } from './whatsapp-cloud.adapter';

/**
 * Provider adapters (WhatsApp Cloud, Twilio, SES, Mitto, simulator) behind ProviderRegistry.send,
 * with credentials loaded by id. Needs ProvidersConfig, ProviderEndpointsConfig and SecretsConfig in
 * the app's configs.
 */
@Module({
  imports: [SecretsModule, ProviderEndpointsModule],
  providers: [
    ProvidersMetrics,
    ProviderHttpClient,
    CredentialConcurrency,
    CredentialsRepository,
    CredentialLoader,
    WhatsAppCloudAdapter,
    TwilioAdapter,
    SesAdapter,
    MittoAdapter,
    SimulatorAdapter,
    ProviderRegistry,
  ],
  // The HTTP client and concurrency limits are shared with the status APIs (status-refresh).
  exports: [ProviderRegistry, CredentialLoader, ProviderHttpClient, CredentialConcurrency],
})
export class ProvidersModule {}
