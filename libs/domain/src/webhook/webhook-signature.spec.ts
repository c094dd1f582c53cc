import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, signWebhook, webhookSecretKey } from './webhook-signature';

describe('webhook signatures (Standard Webhooks)', () => {
  const now = Math.floor(Date.now() / 1000);
  const body = JSON.stringify({ type: 'message.status', data: { status: 'DELIVERED' } });

  it('generates whsec_ secrets of 24 random bytes, different each time', () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(webhookSecretKey(a).symmetricKeySize).toBe(24);
    expect(a).not.toBe(b);
  });

  it('produces headers the reference verifier accepts', () => {
    const secret = generateWebhookSecret();
    const headers = signWebhook([webhookSecretKey(secret)], 'evt_1', now, body);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it('matches the spec example signature', () => {
    // Example from the Standard Webhooks specification.
    const headers = signWebhook(
      [webhookSecretKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')],
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    expect(headers['webhook-signature']).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('signs with every secret during a rotation, so either one verifies', () => {
    const oldSecret = generateWebhookSecret();
    const newSecret = generateWebhookSecret();
    const headers = signWebhook(
      [webhookSecretKey(newSecret), webhookSecretKey(oldSecret)],
      'evt_2',
      now,
      body,
    );
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => new Webhook(oldSecret).verify(body, { ...headers })).not.toThrow();
    expect(() => new Webhook(newSecret).verify(body, { ...headers })).not.toThrow();
    expect(() => new Webhook(generateWebhookSecret()).verify(body, { ...headers })).toThrow();
  });

  it('fails verification when the body is altered', () => {
    const secret = generateWebhookSecret();
    const headers = signWebhook([webhookSecretKey(secret)], 'evt_3', now, body);
    expect(() => new Webhook(secret).verify(`${body} `, { ...headers })).toThrow();
  });
});
