import { createVerify } from 'node:crypto';
import type { FieldIssue } from '@ums/contracts';
import { FieldReader } from './callback-parse';

export type SnsMessageType = 'Notification' | 'SubscriptionConfirmation' | 'UnsubscribeConfirmation';

/** An Amazon SNS HTTP(S) delivery (the JSON body SNS posts), fields as signed. */
export interface SnsEnvelope {
  readonly type: SnsMessageType;
  readonly messageId: string;
  readonly topicArn: string;
  readonly subject: string | undefined;
  readonly message: string;
  readonly timestamp: string;
  readonly token: string | undefined;
  readonly subscribeUrl: string | undefined;
  readonly signatureVersion: '1' | '2';
  readonly signature: string;
  readonly signingCertUrl: string;
}

const TYPES = new Set<string>(['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation']);

/** Reads an SNS body (already parsed JSON), naming every missing or malformed field. */
export function parseSnsEnvelope(
  body: unknown,
): { ok: true; envelope: SnsEnvelope } | { ok: false; issues: FieldIssue[] } {
  const read = new FieldReader();
  const root = read.record(body, '(body)');
  if (root === undefined) return { ok: false, issues: read.issues };
  const type = read.text(root['Type'], 'Type', 64);
  if (type !== undefined && !TYPES.has(type)) read.refuse('Type', `unknown SNS message type '${type}'`);
  const messageId = read.text(root['MessageId'], 'MessageId', 256);
  const topicArn = read.text(root['TopicArn'], 'TopicArn', 512);
  const message = read.text(root['Message'], 'Message', 262_144);
  const timestamp = read.text(root['Timestamp'], 'Timestamp', 64);
  const signatureVersion = read.text(root['SignatureVersion'], 'SignatureVersion', 4);
  if (signatureVersion !== undefined && signatureVersion !== '1' && signatureVersion !== '2') {
    read.refuse('SignatureVersion', 'must be 1 or 2');
  }
  const signature = read.text(root['Signature'], 'Signature', 4096);
  const signingCertUrl = read.text(root['SigningCertURL'], 'SigningCertURL', 2048);
  const subject = read.optionalText(root['Subject'], 'Subject', 1024);
  const confirmation = type === 'SubscriptionConfirmation' || type === 'UnsubscribeConfirmation';
  const token = confirmation ? read.text(root['Token'], 'Token', 2048) : undefined;
  const subscribeUrl = confirmation ? read.text(root['SubscribeURL'], 'SubscribeURL', 2048) : undefined;
  if (
    read.issues.length > 0 ||
    type === undefined ||
    messageId === undefined ||
    topicArn === undefined ||
    message === undefined ||
    timestamp === undefined ||
    signature === undefined ||
    signingCertUrl === undefined
  ) {
    return { ok: false, issues: read.issues };
  }
  return {
    ok: true,
    envelope: {
      type: type as SnsMessageType,
      messageId,
      topicArn,
      subject,
      message,
      timestamp,
      token,
      subscribeUrl,
      signatureVersion: signatureVersion === '2' ? '2' : '1',
      signature,
      signingCertUrl,
    },
  };
}

/**
 * The text SNS signs ("Verifying the signatures of Amazon SNS messages"): for a notification,
 * Message, MessageId, Subject (when present), Timestamp, TopicArn and Type; for a (un)subscribe
 * confirmation, Message, MessageId, SubscribeURL, Timestamp, Token, TopicArn and Type; each as its
 * name, a newline, its value and a newline.
 */
export function snsStringToSign(envelope: SnsEnvelope): string {
  const fields: [string, string | undefined][] =
    envelope.type === 'Notification'
      ? [
          ['Message', envelope.message],
          ['MessageId', envelope.messageId],
          ['Subject', envelope.subject],
          ['Timestamp', envelope.timestamp],
          ['TopicArn', envelope.topicArn],
          ['Type', envelope.type],
        ]
      : [
          ['Message', envelope.message],
          ['MessageId', envelope.messageId],
          ['SubscribeURL', envelope.subscribeUrl],
          ['Timestamp', envelope.timestamp],
          ['Token', envelope.token],
          ['TopicArn', envelope.topicArn],
          ['Type', envelope.type],
        ];
  return fields
    .filter((field): field is [string, string] => field[1] !== undefined)
    .map(([name, value]) => `${name}\n${value}\n`)
    .join('');
}

/** Whether the signature (SHA1withRSA for version 1, SHA256withRSA for 2) verifies with the certificate. */
export function snsSignatureMatches(envelope: SnsEnvelope, certificatePem: string): boolean {
  try {
    const verifier = createVerify(envelope.signatureVersion === '2' ? 'RSA-SHA256' : 'RSA-SHA1');
    verifier.update(snsStringToSign(envelope), 'utf8');
    return verifier.verify(certificatePem, envelope.signature, 'base64');
  } catch {
    // A certificate that is not one, or a key of another kind: not a valid signature.
    return false;
  }
}

export interface SnsUrlPolicy {
  /** Hosts allowed for certificate and subscribe URLs; in production sns.<region>.amazonaws.com. */
  readonly hostPattern: RegExp;
  /** Plain http (a local test server); production requires https. */
  readonly allowHttp: boolean;
}

/** The host pattern of Amazon SNS endpoints (commercial and China regions). */
export const SNS_HOST_PATTERN = /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/;

/** Why SNS would never send us to this URL, or undefined when it might. */
export function snsUrlProblem(
  url: string,
  policy: SnsUrlPolicy,
  kind: 'certificate' | 'subscribe',
): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a URL';
  }
  if (parsed.protocol !== 'https:' && !(policy.allowHttp && parsed.protocol === 'http:'))
    return 'must be https';
  if (parsed.username !== '' || parsed.password !== '') return 'must not carry credentials';
  if (!policy.hostPattern.test(parsed.hostname)) return `host ${parsed.hostname} is not an SNS host`;
  if (kind === 'certificate' && !parsed.pathname.endsWith('.pem')) return 'must name a .pem certificate';
  return undefined;
}
