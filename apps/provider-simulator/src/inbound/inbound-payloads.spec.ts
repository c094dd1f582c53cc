import { Provider, ProviderEventKind } from '@ums/contracts';
import {
  hubSignatureMatches,
  parseTwilioCallback,
  parseWhatsAppCallback,
  twilioSignatureMatches,
} from '@ums/domain';
import { CREDENTIAL_DEFAULTS, type SimulatedCredential } from '../credentials/simulated-credential';
import { buildInboundPost, sendsInbound } from './inbound-payloads';

const credential = (provider: Provider): SimulatedCredential => ({
  id: 'c1',
  provider,
  account: { phoneNumberId: '1065', accountSid: `AC${'0'.repeat(32)}`, from: '+15017122661' },
  secret: undefined,
  capacityTps: 10,
  advertisedTps: undefined,
  latency: CREDENTIAL_DEFAULTS.latency,
  error5xxRate: 0,
  rate429: 0,
  timeoutRate: 0,
  timeoutDelivers: false,
  permanentFailures: new Set(),
  callbackUrl: 'http://hooks.test/cb',
  callbackSecret: 'secret',
  callbacks: CREDENTIAL_DEFAULTS.callbacks,
  updatedAt: '',
});

const NOW = Date.UTC(2025, 0, 1);
const context = (provider: Provider) => ({
  provider,
  credentialId: 'c1',
  receivedAt: new Date(NOW).toISOString(),
});

// The webhooks are read back with the same parsers and signature checks webhook-ingest uses.
describe('buildInboundPost', () => {
  it('sends Twilio incoming-message forms, signed over the URL and the sorted parameters', () => {
    const url = 'http://hooks.test/v1/callbacks/twilio/c1';
    const post = buildInboundPost(
      credential(Provider.Twilio),
      url,
      { from: '+4915100000001', text: 'STOP' },
      NOW,
    );
    if (post === undefined) throw new Error('no post');
    const params = [...new URLSearchParams(post.body).entries()];
    expect(twilioSignatureMatches('secret', url, params, post.headers['x-twilio-signature'])).toBe(true);
    const parsed = parseTwilioCallback(params, {}, context(Provider.Twilio));
    expect(parsed).toMatchObject({
      ok: true,
      events: [
        {
          kind: ProviderEventKind.Inbound,
          inbound: { from: '+4915100000001', to: '+15017122661', text: 'STOP', optOut: true },
        },
      ],
    });
    expect(post.providerMessageId).toMatch(/^SM[0-9a-f]{32}$/);
  });

  it('sends Meta messages webhooks with one text message, signed over the raw body', () => {
    const post = buildInboundPost(
      credential(Provider.WhatsAppCloud),
      'http://hooks.test/cb',
      { from: '+4915100000001', text: 'START' },
      NOW,
    );
    if (post === undefined) throw new Error('no post');
    expect(hubSignatureMatches('secret', Buffer.from(post.body), post.headers['x-hub-signature-256'])).toBe(
      true,
    );
    expect(parseWhatsAppCallback(JSON.parse(post.body), context(Provider.WhatsAppCloud))).toMatchObject({
      ok: true,
      events: [
        {
          kind: ProviderEventKind.Inbound,
          inbound: {
            from: '4915100000001',
            text: 'START',
            optOut: false,
            providerMessageId: post.providerMessageId,
            occurredAt: '2025-01-01T00:00:00.000Z',
          },
        },
      ],
    });
  });

  it('has nothing for providers without inbound messages', () => {
    for (const provider of [Provider.Ses, Provider.Mitto, Provider.Simulator]) {
      expect(sendsInbound(provider)).toBe(false);
      expect(
        buildInboundPost(credential(provider), 'http://x', { from: '+491', text: 'x' }, NOW),
      ).toBeUndefined();
    }
    expect(sendsInbound(Provider.Twilio) && sendsInbound(Provider.WhatsAppCloud)).toBe(true);
  });
});
