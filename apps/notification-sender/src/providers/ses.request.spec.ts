import { createHash, createHmac } from 'node:crypto';
import { Channel, FailureReason, Provider } from '@ums/contracts';
import { sign } from 'aws4';
import { amzDate, sesOutcome, sesRequest } from './ses.request';
import { credentialFor, message } from './test/provider-fixtures';

const ACCESS_KEY_ID = 'AKIDEXAMPLE';
const SECRET_ACCESS_KEY = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';
const now = new Date('2015-08-30T12:36:00.000Z');

const credential = credentialFor(
  Provider.Ses,
  {
    baseUrl: 'http://127.0.0.1:4566/ses-prefix/',
    region: 'eu-west-1',
    fromAddress: 'News <news@example.com>',
    configurationSet: 'ums-events',
  },
  `${ACCESS_KEY_ID}:${SECRET_ACCESS_KEY}`,
  { channel: Channel.Email },
);

const sha256 = (data: string): string => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string): Buffer =>
  createHmac('sha256', key).update(data, 'utf8').digest();

/** SigV4 computed by hand from the AWS documentation, independently of aws4. */
function expectedSignature(
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string,
): string {
  const names = Object.keys(headers)
    .filter((name) => name !== 'authorization')
    .sort();
  const canonicalRequest = [
    method,
    path,
    '',
    ...names.map((name) => `${name}:${(headers[name] ?? '').trim()}`),
    '',
    names.join(';'),
    sha256(body),
  ].join('\n');
  const date = headers['x-amz-date'] ?? '';
  const scope = `${date.slice(0, 8)}/eu-west-1/ses/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', date, scope, sha256(canonicalRequest)].join('\n');
  let key = hmac(`AWS4${SECRET_ACCESS_KEY}`, date.slice(0, 8));
  for (const part of ['eu-west-1', 'ses', 'aws4_request']) key = hmac(key, part);
  return createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
}

describe('sesRequest', () => {
  const m = message('42', Channel.Email, 'ann@example.org', {
    subject: 'Your order ✓',
    text: 'It is ready.',
  });

  it('builds SendEmail with our id as an EmailTag and the configuration set', () => {
    const result = sesRequest(credential, m, now);
    if (!result.ok) throw new Error('refused');
    expect(result.request.path).toBe('/v2/email/outbound-emails');
    expect(JSON.parse(result.request.body)).toEqual({
      FromEmailAddress: 'News <news@example.com>',
      Destination: { ToAddresses: ['ann@example.org'] },
      Content: {
        Simple: {
          Subject: { Data: 'Your order ✓', Charset: 'UTF-8' },
          Body: { Text: { Data: 'It is ready.', Charset: 'UTF-8' } },
        },
      },
      EmailTags: [{ Name: 'ums_message_id', Value: '42' }],
      ConfigurationSetName: 'ums-events',
    });
  });

  it('signs with SigV4: a well-formed Authorization header whose signature matches an independent computation', () => {
    const result = sesRequest(credential, m, now);
    if (!result.ok) throw new Error('refused');
    const { headers, body } = result.request;
    expect(Object.keys(headers).sort()).toEqual([
      'authorization',
      'content-length',
      'content-type',
      'host',
      'x-amz-date',
    ]);
    expect(headers['host']).toBe('127.0.0.1:4566');
    expect(headers['x-amz-date']).toBe('20150830T123600Z');
    expect(headers['content-length']).toBe(String(Buffer.byteLength(body)));
    const match =
      /^AWS4-HMAC-SHA256 Credential=([^,]+), SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
        headers['authorization'] ?? '',
      );
    expect(match?.[1]).toBe('AKIDEXAMPLE/20150830/eu-west-1/ses/aws4_request');
    expect(match?.[2]).toBe('content-length;content-type;host;x-amz-date');
    // The signed path includes the base URL's path prefix, as sent.
    expect(match?.[3]).toBe(expectedSignature('POST', '/ses-prefix/v2/email/outbound-emails', headers, body));
    expect(headers['authorization']).not.toContain(SECRET_ACCESS_KEY);
  });

  it('uses a library that reproduces the AWS SigV4 test suite (get-vanilla, post-vanilla)', () => {
    const credentials = { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET_ACCESS_KEY };
    const vanilla = (method: string) =>
      sign(
        {
          method,
          path: '/',
          service: 'service',
          region: 'us-east-1',
          headers: { Host: 'example.amazonaws.com', 'X-Amz-Date': '20150830T123600Z' },
        },
        credentials,
      ).headers?.['Authorization'];
    const scope =
      'Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date';
    expect(vanilla('GET')).toBe(
      `AWS4-HMAC-SHA256 ${scope}, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31`,
    );
    expect(vanilla('POST')).toBe(
      `AWS4-HMAC-SHA256 ${scope}, Signature=5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b`,
    );
  });

  it('formats the SigV4 timestamp', () => {
    expect(amzDate(new Date('2024-02-29T23:59:59.999Z'))).toBe('20240229T235959Z');
  });

  it('refuses other channels and e-mails without subject or text', () => {
    expect(sesRequest(credential, message('1', Channel.Sms, '+49151', { text: 'x' }), now)).toMatchObject({
      ok: false,
      failure: { code: 'CHANNEL_UNSUPPORTED' },
    });
    for (const content of [{ text: 'x' }, { subject: ' ', text: 'x' }, { subject: 's' }]) {
      expect(sesRequest(credential, message('1', Channel.Email, 'a@b.c', content), now)).toMatchObject({
        ok: false,
        failure: { kind: 'permanent', code: 'CONTENT_INVALID' },
      });
    }
  });
});

describe('sesOutcome', () => {
  const m = message('42', Channel.Email, 'ann@example.org', { subject: 's', text: 't' });

  it('accepts a 200 with the MessageId', () => {
    expect(sesOutcome(m, { status: 200, headers: {}, body: '{"MessageId":"0100018c-abc"}' }, 0)).toEqual({
      messageId: '42',
      kind: 'accepted',
      providerMessageId: '0100018c-abc',
    });
  });

  it('classifies errors by __type, or by the x-amzn-ErrorType header', () => {
    expect(
      sesOutcome(
        m,
        {
          status: 400,
          headers: {},
          body: '{"__type":"MessageRejected","message":"Email address is not verified."}',
        },
        0,
      ),
    ).toEqual({
      messageId: '42',
      kind: 'permanent',
      reason: FailureReason.Rejected,
      code: 'MessageRejected',
      detail: 'Email address is not verified.',
    });
    expect(
      sesOutcome(
        m,
        {
          status: 429,
          headers: { 'x-amzn-errortype': 'TooManyRequestsException:http://internal', 'retry-after': '1' },
          body: '',
        },
        0,
      ),
    ).toMatchObject({
      kind: 'retryable',
      code: 'TooManyRequestsException',
      congestion: true,
      retryAfterMs: 1000,
    });
    // The header wins over the body, as in AWS SDKs.
    expect(
      sesOutcome(
        m,
        {
          status: 400,
          headers: { 'x-amzn-errortype': 'SendingPausedException' },
          body: '{"__type":"BadRequestException","message":"paused"}',
        },
        0,
      ),
    ).toMatchObject({ kind: 'permanent', reason: FailureReason.Blocked, code: 'SendingPausedException' });
    expect(
      sesOutcome(
        m,
        { status: 400, headers: {}, body: '{"__type":"AccountSendingPausedException","message":"paused"}' },
        0,
      ),
    ).toMatchObject({ kind: 'permanent', reason: FailureReason.Blocked });
  });
});
