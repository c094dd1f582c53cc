import { generateKeyPairSync, createSign } from 'node:crypto';
import { FailureReason, MessageStatus, Provider, ProviderEventKind } from '@ums/contracts';
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

  it('keeps a bounce code and the first diagnostic, and refuses unknown events', () => {
    const bounced = parseSesEvent(
      event('Bounce', {
        bounce: {
          bounceType: 'Permanent',
          bounceSubType: 'General',
          bouncedRecipients: [{ diagnosticCode: 'smtp; 550 no such user' }, { diagnosticCode: 'other' }],
        },
      }),
      context,
    );
    expect(bounced.ok && bounced.events[0]?.status).toMatchObject({
      status: MessageStatus.Failed,
      errorCode: 'Permanent/General',
      errorText: 'smtp; 550 no such user',
    });
    const untyped = parseSesEvent(event('Bounce', { bounce: {} }), context);
    expect(untyped.ok && untyped.events[0]?.status).not.toHaveProperty('errorCode');
    expect(parseSesEvent(event('Teleport'), context)).toEqual({
      ok: false,
      issues: [{ field: 'Message.eventType', reason: "unknown SES event 'Teleport'" }],
    });
  });

  it('rejects with the reason SES gives for a reject or a rendering failure', () => {
    const reject = parseSesEvent(event('Reject', { reject: { reason: 'Bad content' } }), context);
    expect(reject.ok && reject.events[0]?.status).toMatchObject({
      reason: FailureReason.Rejected,
      errorCode: 'Reject',
      errorText: 'Bad content',
    });
    const rendering = parseSesEvent(
      event('Rendering Failure', { failure: { errorMessage: 'Attribute name is missing' } }),
      context,
    );
    expect(rendering.ok && rendering.events[0]?.status).toMatchObject({
      reason: FailureReason.Rejected,
      errorCode: 'RenderingFailure',
      errorText: 'Attribute name is missing',
    });
    const delivered = parseSesEvent(event('Delivery'), context);
    expect(delivered.ok && delivered.events[0]?.status).not.toHaveProperty('reason');
  });

  it('dates a status by its details, else by the mail, else by its arrival', () => {
    const at = (extra: Record<string, unknown>, mailTimestamp?: string): string | undefined => {
      const body = JSON.parse(event('Delivery', extra)) as { mail: Record<string, unknown> };
      if (mailTimestamp !== undefined) body.mail['timestamp'] = mailTimestamp;
      const parse = parseSesEvent(JSON.stringify(body), context);
      return parse.ok ? parse.events[0]?.status?.occurredAt : undefined;
    };
    expect(at({ delivery: { timestamp: '2026-02-03T04:05:06Z' } }, '2026-02-01T00:00:00Z')).toBe(
      '2026-02-03T04:05:06.000Z',
    );
    expect(at({ delivery: { timestamp: 'soon' } }, '2026-02-01T00:00:00Z')).toBe('2026-02-01T00:00:00.000Z');
    expect(at({})).toBe(context.receivedAt);
  });

  it('reads notificationType, and names no message of ours without a decimal tag', () => {
    const body = (tags: unknown): string =>
      JSON.stringify({ notificationType: 'Delivery', mail: { messageId: 'ses-2', tags } });
    const untagged = parseSesEvent(body({ ums_message_id: ['not-ours'] }), context);
    expect(untagged.ok && untagged.events[0]?.status).toEqual({
      providerMessageId: 'ses-2',
      status: MessageStatus.Delivered,
      occurredAt: context.receivedAt,
    });
    const noTags = parseSesEvent(body('none'), context);
    expect(noTags.ok && noTags.events[0]?.status?.messageId).toBeUndefined();
  });

  it('refuses an event without its type, mail or SES message id', () => {
    const fields = (body: unknown): string[] => {
      const parse = parseSesEvent(JSON.stringify(body), context);
      return parse.ok ? [] : parse.issues.map((issue) => issue.field);
    };
    expect(fields([1])).toEqual(['Message']);
    expect(fields({})).toEqual(['Message.eventType', 'Message.mail']);
    expect(fields({ eventType: 'Send', mail: { messageId: '' } })).toEqual(['Message.mail.messageId']);
  });

  it('turns a complaint into an opt-out of each complaining address', () => {
    const parse = parseSesEvent(
      event('Complaint', {
        complaint: {
          timestamp: '2026-02-03T04:05:06Z',
          complainedRecipients: [{ emailAddress: 'x@y.z' }, { emailAddress: 'w@y.z' }],
        },
      }),
      context,
    );
    expect(parse).toEqual({
      ok: true,
      ignored: 0,
      events: ['x@y.z', 'w@y.z'].map((from) => ({
        eventId: `ses-complaint:ses-1:${from}`,
        kind: ProviderEventKind.Inbound,
        provider: Provider.Ses,
        credentialId: 'c',
        inbound: {
          from,
          to: 'a@b.c',
          providerMessageId: 'ses-1',
          optOut: true,
          occurredAt: '2026-02-03T04:05:06.000Z',
        },
        receivedAt: context.receivedAt,
      })),
    });
    const none = parseSesEvent(event('Complaint'), context);
    expect(none).toEqual({ ok: true, events: [], ignored: 0 });
    const undated = parseSesEvent(
      event('Complaint', { complaint: { complainedRecipients: [{ emailAddress: 'x@y.z' }] } }),
      context,
    );
    expect(undated.ok && undated.events[0]?.inbound?.occurredAt).toBe(context.receivedAt);
  });

  it('refuses a complaint without its source or with an address missing', () => {
    const noSource = JSON.stringify({ eventType: 'Complaint', mail: { messageId: 'ses-1' } });
    expect(parseSesEvent(noSource, context)).toEqual({
      ok: false,
      issues: [{ field: 'Message.mail.source', reason: 'must be a non-empty string' }],
    });
    const parse = parseSesEvent(
      event('Complaint', { complaint: { complainedRecipients: [{ emailAddress: 'x@y.z' }, 'w@y.z'] } }),
      context,
    );
    expect(parse).toEqual({
      ok: false,
      issues: [
        {
          field: 'Message.complaint.complainedRecipients[1].emailAddress',
          reason: 'must be a non-empty string',
        },
      ],
    });
  });
});
