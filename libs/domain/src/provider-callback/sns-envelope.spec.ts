import { generateKeyPairSync, createSign } from 'node:crypto';
import { FailureReason, MessageStatus, Provider } from '@ums/contracts';
import { parseSesEvent } from './ses-event.parser';
import { parseSnsEnvelope, SNS_HOST_PATTERN, snsSignatureMatches, snsUrlProblem } from './sns-envelope';

const production = { hostPattern: SNS_HOST_PATTERN, allowHttp: false };

describe('snsUrlProblem', () => {
  it('allows only https certificate URLs on sns.<region>.amazonaws.com', () => {
    expect(
      snsUrlProblem(
        'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-abc.pem',
        production,
        'certificate',
      ),
    ).toBeUndefined();
    expect(
      snsUrlProblem(
        'https://sns.cn-north-1.amazonaws.com.cn/SimpleNotificationService-abc.pem',
        production,
        'certificate',
      ),
    ).toBeUndefined();
    expect(snsUrlProblem('http://sns.eu-west-1.amazonaws.com/x.pem', production, 'certificate')).toBe(
      'must be https',
    );
    expect(
      snsUrlProblem('https://sns.eu-west-1.amazonaws.com.evil.com/x.pem', production, 'certificate'),
    ).toBe('host sns.eu-west-1.amazonaws.com.evil.com is not an SNS host');
    expect(
      snsUrlProblem('https://evil.com/sns.eu-west-1.amazonaws.com/x.pem', production, 'certificate'),
    ).toBe('host evil.com is not an SNS host');
    expect(
      snsUrlProblem('https://user:pw@sns.eu-west-1.amazonaws.com/x.pem', production, 'certificate'),
    ).toBe('must not carry credentials');
    expect(snsUrlProblem('https://sns.eu-west-1.amazonaws.com/x.txt', production, 'certificate')).toBe(
      'must name a .pem certificate',
    );
    expect(
      snsUrlProblem(
        'https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription',
        production,
        'subscribe',
      ),
    ).toBeUndefined();
    expect(snsUrlProblem('not a url', production, 'subscribe')).toBe('is not a URL');
  });
});

describe('parseSnsEnvelope and snsSignatureMatches', () => {
  // Any RSA key verifies the same way a certificate's key does; the certificate itself is tested in the int-spec.
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();

  const notification = (version: '1' | '2'): Record<string, string> => {
    const m: Record<string, string> = {
      Type: 'Notification',
      MessageId: 'm-1',
      TopicArn: 'arn:aws:sns:eu-west-1:1:t',
      Message: '{"x":1}',
      Timestamp: '2026-01-01T00:00:00.000Z',
      SignatureVersion: version,
      SigningCertURL: 'https://sns.eu-west-1.amazonaws.com/a.pem',
    };
    // AWS's documented string to sign, written out by hand (no Subject here).
    const text = `Message\n{"x":1}\nMessageId\nm-1\nTimestamp\n2026-01-01T00:00:00.000Z\nTopicArn\narn:aws:sns:eu-west-1:1:t\nType\nNotification\n`;
    return {
      ...m,
      Signature: createSign(version === '2' ? 'RSA-SHA256' : 'RSA-SHA1')
        .update(text)
        .sign(privateKey, 'base64'),
    };
  };

  it.each(['1', '2'] as const)('verifies signature version %s and refuses a changed field', (version) => {
    const parsed = parseSnsEnvelope(notification(version));
    if (!parsed.ok) throw new Error('refused');
    expect(snsSignatureMatches(parsed.envelope, pem)).toBe(true);
    expect(snsSignatureMatches({ ...parsed.envelope, message: '{"x":2}' }, pem)).toBe(false);
    expect(
      snsSignatureMatches({ ...parsed.envelope, signatureVersion: version === '1' ? '2' : '1' }, pem),
    ).toBe(false);
    expect(snsSignatureMatches(parsed.envelope, 'not a certificate')).toBe(false);
  });

  it('names missing fields', () => {
    const parsed = parseSnsEnvelope({ Type: 'SubscriptionConfirmation', SignatureVersion: '3' });
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? [] : parsed.issues.map((i) => i.field)).toEqual([
      'MessageId',
      'TopicArn',
      'Message',
      'Timestamp',
      'SignatureVersion',
      'Signature',
      'SigningCertURL',
      'Token',
      'SubscribeURL',
    ]);
  });
});

describe('parseSesEvent', () => {
  const context = { provider: Provider.Ses, credentialId: 'c', receivedAt: '2026-01-01T00:00:00.000Z' };
  const event = (eventType: string, extra: Record<string, unknown> = {}): string =>
    JSON.stringify({
      eventType,
      mail: { messageId: 'ses-1', source: 'a@b.c', tags: { ums_message_id: ['5'] } },
      ...extra,
    });

  it.each([
    ['Send', MessageStatus.Sent],
    ['Delivery', MessageStatus.Delivered],
    ['Open', MessageStatus.Read],
    ['Reject', MessageStatus.Failed],
  ])('maps %s to %s', (type, status) => {
    const parse = parseSesEvent(event(type), context);
    expect(parse.ok && parse.events[0]?.status).toMatchObject({
      messageId: '5',
      providerMessageId: 'ses-1',
      status,
    });
  });

  it('maps bounce types to reasons and ignores clicks', () => {
    const bounce = (bounceType: string, bounceSubType: string): FailureReason | undefined => {
      const parse = parseSesEvent(event('Bounce', { bounce: { bounceType, bounceSubType } }), context);
      return parse.ok ? parse.events[0]?.status?.reason : undefined;
    };
    expect(bounce('Permanent', 'General')).toBe(FailureReason.InvalidRecipient);
    expect(bounce('Permanent', 'Suppressed')).toBe(FailureReason.Blocked);
    expect(bounce('Permanent', 'UnsupportedAttachment')).toBe(FailureReason.InvalidRecipient);
    expect(bounce('Transient', 'MailboxFull')).toBe(FailureReason.ProviderError);
    expect(parseSesEvent(event('Click'), context)).toEqual({ ok: true, events: [], ignored: 1 });
    expect(parseSesEvent('nope', context)).toEqual({
      ok: false,
      issues: [{ field: 'Message', reason: 'must be an SES event in JSON' }],
    });
  });
});
