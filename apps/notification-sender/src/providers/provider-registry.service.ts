import { Injectable } from '@nestjs/common';
import { Provider } from '@ums/contracts';
import { CredentialLoader } from './credential-loader.service';
import { MittoAdapter } from './mitto.adapter';
import type { OutgoingMessage, ProviderAdapter, SendControl, SendOutcome } from './provider-adapter';
import { outcomeFor } from './provider-request';
import { SesAdapter } from './ses.adapter';
import { SimulatorAdapter } from './simulator.adapter';
import { TwilioAdapter } from './twilio.adapter';
import { WhatsAppCloudAdapter } from './whatsapp-cloud.adapter';

/**
 * The adapters by provider, and the one call the sender makes: send these messages with that
 * credential. Returns one outcome per message, in order; never throws for provider, network or
 * credential trouble (an unusable credential fails every message with CREDENTIAL_INVALID).
 */
@Injectable()
export class ProviderRegistry {
  private readonly adapters: { readonly [P in Provider]: ProviderAdapter<P> };

  constructor(
    private readonly credentials: CredentialLoader,
    whatsApp: WhatsAppCloudAdapter,
    twilio: TwilioAdapter,
    ses: SesAdapter,
    mitto: MittoAdapter,
    simulator: SimulatorAdapter,
  ) {
    this.adapters = {
      [Provider.WhatsAppCloud]: whatsApp,
      [Provider.Twilio]: twilio,
      [Provider.Ses]: ses,
      [Provider.Mitto]: mitto,
      [Provider.Simulator]: simulator,
    };
  }

  adapterFor<P extends Provider>(provider: P): ProviderAdapter<P> {
    return this.adapters[provider];
  }

  async send(
    credentialId: string,
    messages: readonly OutgoingMessage[],
    control?: SendControl,
  ): Promise<SendOutcome[]> {
    if (messages.length === 0) return [];
    const loaded = await this.credentials.load(credentialId);
    if (!loaded.ok) return messages.map((message) => outcomeFor(message, loaded.failure));
    const { credential } = loaded;
    // The credential's provider and settings were validated together, so they match.
    const adapter = this.adapters[credential.provider] as unknown as ProviderAdapter;
    return adapter.send(credential, messages, control);
  }
}
