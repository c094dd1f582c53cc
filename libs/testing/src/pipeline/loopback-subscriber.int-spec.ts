import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { LoopbackSubscriber, type SignatureVerifier } from './loopback-subscriber';

/** Both verifiers judge the same requests, signed by the reference package (not by our signing code). */
describe.each<SignatureVerifier>(['reference', 'hmac'])('LoopbackSubscriber (%s verifier)', (verifier) => {
  let subscriber: LoopbackSubscriber;
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const otherSecret = `whsec_${randomBytes(24).toString('base64')}`;

  beforeAll(async () => {
    subscriber = await LoopbackSubscriber.start({ verifier });
    subscriber.secret = secret;
  });
  afterAll(() => subscriber.stop());

  const post = async (
    body: string,
    headers: Record<string, string>,
  ): Promise<{ valid: boolean | undefined; status: number }> => {
    const before = subscriber.received.length;
    const response = await fetch(subscriber.url(), { method: 'POST', body, headers });
    return { valid: subscriber.received[before]?.validSignature, status: response.status };
  };
  const signed = (key: string, id: string, at: Date, body: string): Record<string, string> => ({
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(key).sign(id, at, body),
  });

  it('accepts a signature made with its secret, alone or beside a signature of another secret', async () => {
    const body = JSON.stringify({ type: 'message.status', data: { n: 1 } });
    await expect(post(body, signed(secret, 'msg_1', new Date(), body))).resolves.toEqual({
      valid: true,
      status: 204,
    });
    const both = signed(secret, 'msg_2', new Date(), body);
    const other = signed(otherSecret, 'msg_2', new Date(), body)['webhook-signature'] as string;
    both['webhook-signature'] = `${other} ${both['webhook-signature']}`;
    await expect(post(body, both)).resolves.toMatchObject({ valid: true });
  });

  it('refuses a changed body, id or timestamp, another secret, a stale timestamp and a missing signature', async () => {
    const body = JSON.stringify({ type: 'message.status', data: { n: 2 } });
    const good = signed(secret, 'msg_3', new Date(), body);
    const before = subscriber.invalidSignatures();
    const cases: [string, Record<string, string>][] = [
      [`${body} `, good],
      [body, { ...good, 'webhook-id': 'msg_4' }],
      [body, { ...good, 'webhook-timestamp': String(Number(good['webhook-timestamp']) + 1) }],
      [body, signed(otherSecret, 'msg_3', new Date(), body)],
      [body, signed(secret, 'msg_3', new Date(Date.now() - 10 * 60_000), body)],
      [body, { 'webhook-id': 'msg_3', 'webhook-timestamp': good['webhook-timestamp'] as string }],
    ];
    for (const [sent, headers] of cases)
      await expect(post(sent, headers)).resolves.toMatchObject({ valid: false });
    expect(subscriber.invalidSignatures() - before).toBe(cases.length);
  });
});
