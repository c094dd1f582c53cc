import { Provider } from '../enums/provider.enum';
import { parseCredentialConfig, secretProblem } from './credential-config';

const TWILIO_SID = 'AC0123456789abcdef0123456789abcdef';

function issues(provider: Provider, config: unknown): string[] {
  const parsed = parseCredentialConfig(provider, config);
  return parsed.ok ? [] : parsed.issues.map((issue) => `${issue.field}: ${issue.reason}`);
}

describe('parseCredentialConfig', () => {
  it('accepts valid settings of every provider, ignoring unknown keys and applying defaults', () => {
    const whatsApp = parseCredentialConfig(Provider.WhatsAppCloud, {
      baseUrl: 'https://graph.facebook.com',
      phoneNumberId: 1234567890,
      note: 'ignored',
    });
    expect(whatsApp).toEqual({
      ok: true,
      config: expect.objectContaining({
        baseUrl: 'https://graph.facebook.com',
        phoneNumberId: '1234567890',
        apiVersion: 'v21.0',
        defaultLanguage: 'en',
      }),
    });
    expect(whatsApp.ok && 'note' in whatsApp.config).toBe(false);
    expect(
      issues(Provider.Twilio, {
        baseUrl: 'https://api.twilio.com',
        accountSid: TWILIO_SID,
        from: '+15005550006',
        statusCallbackUrl: 'https://hooks.example.com/twilio?x=1',
      }),
    ).toEqual([]);
    expect(
      issues(Provider.Ses, {
        baseUrl: 'https://email.eu-west-1.amazonaws.com',
        region: 'eu-west-1',
        fromAddress: 'news@example.com',
      }),
    ).toEqual([]);
    expect(issues(Provider.Mitto, { baseUrl: 'http://localhost:3005/mitto', from: 4915100000 })).toEqual([]);
    expect(issues(Provider.Simulator, { baseUrl: 'http://127.0.0.1:3005' })).toEqual([]);
  });

  it('names each bad field under config.', () => {
    expect(
      issues(Provider.WhatsAppCloud, { baseUrl: 'ftp://x', phoneNumberId: 'abc', apiVersion: '21' }),
    ).toEqual([
      'config.baseUrl: baseUrl must be an http(s) URL without query or fragment',
      'config.phoneNumberId: phoneNumberId must be the numeric id of the business phone number',
      'config.apiVersion: apiVersion must look like v21.0',
    ]);
    expect(
      issues(Provider.Twilio, {
        baseUrl: 'https://api.twilio.com',
        accountSid: 'AC1',
        statusCallbackUrl: 'x',
      }),
    ).toEqual([
      'config.accountSid: accountSid must be AC followed by 32 hex digits',
      'config.from: from must be 1-64 characters without spaces',
      'config.from: from is required unless messagingServiceSid is given',
      'config.statusCallbackUrl: statusCallbackUrl must be an http(s) URL',
    ]);
    expect(
      issues(Provider.Ses, { baseUrl: 'https://x.example/?q=1', region: 'EU', fromAddress: 'nobody' }),
    ).toEqual([
      'config.baseUrl: baseUrl must be an http(s) URL without query or fragment',
      'config.region: region must be an AWS region such as eu-west-1',
      'config.fromAddress: fromAddress must be an e-mail address or Name <address>',
    ]);
    expect(issues(Provider.Mitto, { baseUrl: 'https://m.example' })).toEqual([
      'config.from: from must be 1-20 characters without spaces',
      'config.from: from is required',
    ]);
    expect(issues(Provider.Simulator, {})).toEqual([
      'config.baseUrl: baseUrl must be an http(s) URL without query or fragment',
    ]);
  });

  it('refuses settings that are not an object', () => {
    expect(issues(Provider.Simulator, undefined)).toEqual(['config.(root): must be a JSON object']);
    expect(issues(Provider.Simulator, ['x'])).toEqual(['config.(root): must be a JSON object']);
  });
});

describe('secretProblem', () => {
  it('requires a secret except for the simulator, and <id>:<key> for SES', () => {
    expect(secretProblem(Provider.Simulator, undefined)).toBeUndefined();
    for (const provider of [Provider.WhatsAppCloud, Provider.Twilio, Provider.Mitto, Provider.Ses]) {
      expect(secretProblem(provider, undefined)).toBe(`a ${provider} credential needs a secret`);
      expect(secretProblem(provider, '')).toBe(`a ${provider} credential needs a secret`);
    }
    expect(secretProblem(Provider.Twilio, 'token')).toBeUndefined();
    expect(secretProblem(Provider.Ses, 'AKID:secret/key+x')).toBeUndefined();
    for (const bad of ['AKID', ':secret', 'AKID:', 'AK ID:secret']) {
      expect(secretProblem(Provider.Ses, bad)).toBe('an ses secret must be <accessKeyId>:<secretAccessKey>');
    }
  });
});
