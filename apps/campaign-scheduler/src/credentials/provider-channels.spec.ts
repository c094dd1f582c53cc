import { Channel, Provider } from '@ums/contracts';
import { providerChannelProblem } from './provider-channels';

describe('providerChannelProblem', () => {
  const allowed: ReadonlyArray<[Provider, Channel[]]> = [
    [Provider.WhatsAppCloud, [Channel.WhatsApp]],
    [Provider.Twilio, [Channel.Sms, Channel.WhatsApp]],
    [Provider.Ses, [Channel.Email]],
    [Provider.Mitto, [Channel.Sms]],
    [Provider.Simulator, [Channel.WhatsApp, Channel.Sms, Channel.Email]],
  ];

  it('covers every provider', () => {
    expect(allowed.map(([provider]) => provider).sort()).toEqual(Object.values(Provider).sort());
  });

  it.each(allowed)('%s accepts exactly its channels', (provider, channels) => {
    for (const channel of Object.values(Channel)) {
      const problem = providerChannelProblem(provider, channel);
      expect({ channel, allowed: problem === undefined }).toEqual({
        channel,
        allowed: channels.includes(channel),
      });
    }
  });

  it('explains a refusal', () => {
    expect(providerChannelProblem(Provider.Twilio, Channel.Email)).toBe(
      'provider twilio sends on sms or whatsapp, not email',
    );
  });
});
