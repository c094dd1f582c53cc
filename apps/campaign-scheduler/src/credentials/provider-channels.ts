import { Channel, Provider } from '@ums/contracts';

/** Channels each provider can send on; the simulator stands in for any of them. */
export const CHANNELS_BY_PROVIDER: Readonly<Record<Provider, readonly Channel[]>> = {
  [Provider.WhatsAppCloud]: [Channel.WhatsApp],
  [Provider.Twilio]: [Channel.Sms, Channel.WhatsApp],
  [Provider.Ses]: [Channel.Email],
  [Provider.Mitto]: [Channel.Sms],
  [Provider.Simulator]: [Channel.WhatsApp, Channel.Sms, Channel.Email],
};

/** Why a provider cannot send on a channel, or undefined when it can. */
export function providerChannelProblem(provider: Provider, channel: Channel): string | undefined {
  const channels = CHANNELS_BY_PROVIDER[provider];
  return channels.includes(channel)
    ? undefined
    : `provider ${provider} sends on ${channels.join(' or ')}, not ${channel}`;
}
