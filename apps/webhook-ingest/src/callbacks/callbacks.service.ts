import { Injectable } from '@nestjs/common';
import {
  CallbackErrorCode,
  CredentialErrorCode,
  type FieldIssue,
  Provider,
  ProviderEventKind,
  type ProviderEventV1,
} from '@ums/contracts';
import {
  type CallbackContext,
  type CallbackParse,
  constantTimeEquals,
  hubSignatureMatches,
  parseJsonBody,
  parseMittoCallback,
  parseSesEvent,
  parseSimulatorCallback,
  parseSnsEnvelope,
  parseTwilioCallback,
  parseWhatsAppCallback,
  snsSignatureMatches,
  twilioSignatureMatches,
} from '@ums/domain';
import { InvalidInputError, NotFoundError, UnauthenticatedError, UnavailableError } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { bindWhatsAppBody, twilioAccountSid } from './account-binding';
import { type CallbackCredential, CallbackCredentials } from './callback-credentials.service';
import { CallbacksConfig } from './callbacks.config';
import { CallbacksMetrics } from './callbacks.metrics';
import { ProviderEventsPublisher } from './provider-events.publisher';
import { SnsClient } from './sns-client.service';

/** One callback as received: the exact bytes, the headers, and the URL as called (path and query). */
export interface CallbackRequest {
  readonly rawBody: Buffer;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Path and query exactly as received (Twilio signs the full URL). */
  readonly url: string;
  /** Scheme and host the request came to, when no public base URL is configured. */
  readonly origin: string;
}

export interface CallbackReceipt {
  readonly published: number;
  readonly ignored: number;
}

type Refuse = (field: string, reason: string) => never;

/** The query parameter of a Mitto callback URL that carries the credential's secret token. */
export const MITTO_TOKEN_PARAM = 'ums_token';

/**
 * Verifies a provider callback on its raw body, reads it into provider events and publishes them
 * (acks=all) before the caller answers 2xx; when Kafka does not acknowledge in time the caller
 * answers 503 and the provider retries (a publish that lands late is absorbed by the consumer).
 * A verified callback must also name the credential's provider account: WhatsApp changes of another
 * `phone_number_id` are ignored, a Twilio post of another `AccountSid` is refused (400
 * ACCOUNT_MISMATCH).
 */
@Injectable()
export class CallbacksService {
  constructor(
    private readonly credentials: CallbackCredentials,
    private readonly publisher: ProviderEventsPublisher,
    private readonly config: CallbacksConfig,
    private readonly metrics: CallbacksMetrics,
    private readonly sns: SnsClient,
    private readonly logger: PinoLogger,
  ) {
    this.logger.setContext(CallbacksService.name);
  }

  /** Meta's subscription check: answers `hub.challenge` when the verify token matches. */
  async whatsAppChallenge(credentialId: string, query: Readonly<Record<string, unknown>>): Promise<string> {
    const credential = await this.credentialFor(Provider.WhatsAppCloud, credentialId);
    const mode = query['hub.mode'];
    const token = query['hub.verify_token'];
    const challenge = query['hub.challenge'];
    if (mode !== 'subscribe')
      throw InvalidInputError.field(CallbackErrorCode.VerifyModeInvalid, 'hub.mode', 'must be subscribe');
    if (typeof challenge !== 'string' || challenge === '' || challenge.length > 256) {
      throw InvalidInputError.field(
        CallbackErrorCode.VerifyChallengeInvalid,
        'hub.challenge',
        'must be 1-256 characters',
      );
    }
    if (
      credential.verifyToken === undefined ||
      typeof token !== 'string' ||
      !constantTimeEquals(token, credential.verifyToken)
    ) {
      throw InvalidInputError.field(
        CallbackErrorCode.VerifyTokenInvalid,
        'hub.verify_token',
        'does not match the credential',
      );
    }
    return challenge;
  }

  /** Verifies, reads and publishes one callback for `credential` (from credentialFor). */
  async ingest(credential: CallbackCredential, request: CallbackRequest): Promise<CallbackReceipt> {
    const provider = credential.provider;
    const context: CallbackContext = {
      provider,
      credentialId: credential.id,
      receivedAt: new Date().toISOString(),
    };
    const parse = await this.verifyAndParse(credential, request, context);
    if (!parse.ok) {
      this.metrics.callbacks.inc({ provider, result: 'malformed' });
      throw new InvalidInputError(
        CallbackErrorCode.Malformed,
        `callback refused: ${parse.issues.map((i) => `${i.field}: ${i.reason}`).join('; ')}`.slice(0, 2048),
        parse.issues.slice(0, 20),
      );
    }
    await this.publish(provider, parse.events);
    this.metrics.callbacks.inc({ provider, result: 'accepted' });
    const inbound = parse.events.filter((event) => event.kind === ProviderEventKind.Inbound).length;
    if (inbound > 0) this.metrics.events.inc({ provider, kind: ProviderEventKind.Inbound }, inbound);
    if (parse.events.length > inbound) {
      this.metrics.events.inc({ provider, kind: ProviderEventKind.Status }, parse.events.length - inbound);
    }
    if (parse.ignored > 0) this.metrics.events.inc({ provider, kind: 'ignored' }, parse.ignored);
    return { published: parse.events.length, ignored: parse.ignored };
  }

  /** The credential a callback URL names, for `provider`; NotFoundError otherwise (before any body is read). */
  async credentialFor(provider: Provider, credentialId: string): Promise<CallbackCredential> {
    let credential: CallbackCredential | undefined;
    try {
      credential = await this.credentials.load(credentialId);
    } catch (error: unknown) {
      this.metrics.callbacks.inc({ provider, result: 'unavailable' });
      throw error;
    }
    // One answer for a missing credential and one of another provider: the URL names nothing we serve.
    if (credential === undefined || credential.provider !== provider) {
      this.metrics.callbacks.inc({ provider, result: 'unknown_credential' });
      throw new NotFoundError(CredentialErrorCode.NotFound, `no ${provider} credential ${credentialId}`);
    }
    return credential;
  }

  private async verifyAndParse(
    credential: CallbackCredential,
    request: CallbackRequest,
    context: CallbackContext,
  ): Promise<CallbackParse> {
    const secret = credential.verifySecret;
    const header = (name: string): string | undefined => {
      const value = request.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    const refuse: Refuse = (field, reason) => {
      this.metrics.callbacks.inc({ provider: context.provider, result: 'bad_signature' });
      throw InvalidInputError.field(CallbackErrorCode.SignatureInvalid, field, reason);
    };
    if (context.provider === Provider.Ses)
      return this.verifyAndParseSns(credential, request, context, refuse);
    if (secret === undefined) return refuse('credential', 'has no callback secret to verify with');
    switch (context.provider) {
      case Provider.WhatsAppCloud:
      case Provider.Simulator: {
        const name = context.provider === Provider.WhatsAppCloud ? 'x-hub-signature-256' : 'x-sim-signature';
        if (!hubSignatureMatches(secret, request.rawBody, header(name))) {
          return refuse(name, 'missing or not the HMAC-SHA256 of the body');
        }
        const json = parseJsonBody(request.rawBody);
        if (!json.ok) return json;
        return context.provider === Provider.WhatsAppCloud
          ? this.parseWhatsApp(credential, json.value, context, refuse)
          : parseSimulatorCallback(json.value, context);
      }
      case Provider.Twilio:
        return this.verifyAndParseTwilio(credential, secret, request, context, refuse);
      case Provider.Mitto:
        return this.verifyAndParseMitto(secret, request, context);
    }
  }

  /**
   * A Mitto delivery report: unsigned, its parameters in the query (GET) or in the query and a form
   * body (POST). The registered URL carries the credential's secret as `ums_token` (constant-time
   * compare; 401 without naming what was expected); the token is not a report parameter.
   */
  private verifyAndParseMitto(
    secret: string,
    request: CallbackRequest,
    context: CallbackContext,
  ): CallbackParse {
    const query = new URL(request.url, 'http://x').searchParams;
    const token = query.get(MITTO_TOKEN_PARAM);
    if (token === null || !constantTimeEquals(token, secret)) {
      this.metrics.callbacks.inc({ provider: context.provider, result: 'bad_signature' });
      throw new UnauthenticatedError(
        CallbackErrorCode.TokenInvalid,
        `${MITTO_TOKEN_PARAM}: missing or not the token of the registered callback URL`,
      );
    }
    const params: Record<string, string> = {};
    for (const [name, value] of query) if (name !== MITTO_TOKEN_PARAM) params[name] = value;
    if (request.rawBody.length > 0) {
      const form = formParams(request.rawBody);
      if (!form.ok) return form;
      for (const [name, value] of form.value) if (name !== MITTO_TOKEN_PARAM) params[name] = value;
    }
    return parseMittoCallback(params, context);
  }

  /** A verified Meta webhook, kept to the credential's phone number (other numbers' changes ignored). */
  private parseWhatsApp(
    credential: CallbackCredential,
    body: unknown,
    context: CallbackContext,
    refuse: Refuse,
  ): CallbackParse {
    if (credential.account === undefined)
      return refuse('credential', 'has no config.phoneNumberId to accept');
    const bound = bindWhatsAppBody(body, credential.account);
    const parse = parseWhatsAppCallback(bound.body, context);
    if (bound.issues.length > 0)
      return { ok: false, issues: [...(parse.ok ? [] : parse.issues), ...bound.issues] };
    if (bound.foreign === 0 || !parse.ok) return parse;
    this.metrics.foreignAccounts.inc({ provider: context.provider }, bound.foreign);
    this.logger.warn(
      {
        credentialId: credential.id,
        phoneNumberId: credential.account,
        foreignPhoneNumberIds: bound.foreignPhoneNumberIds,
        changes: bound.foreign,
      },
      "WhatsApp callback changes of another phone_number_id than the credential's ignored (not published)",
    );
    return { ...parse, ignored: parse.ignored + bound.foreign };
  }

  /** Twilio signs the URL as called plus the form; the form must name the credential's AccountSid. */
  private verifyAndParseTwilio(
    credential: CallbackCredential,
    secret: string,
    request: CallbackRequest,
    context: CallbackContext,
    refuse: Refuse,
  ): CallbackParse {
    const params = formParams(request.rawBody);
    if (!params.ok) return params;
    const base = this.config.INGEST_PUBLIC_BASE_URL ?? request.origin;
    const signature = request.headers['x-twilio-signature'];
    if (
      !twilioSignatureMatches(
        secret,
        `${base}${request.url}`,
        params.value,
        Array.isArray(signature) ? signature[0] : signature,
      )
    ) {
      return refuse('x-twilio-signature', 'missing or not the signature of this URL and form');
    }
    if (credential.account === undefined) return refuse('credential', 'has no config.accountSid to accept');
    const accountSid = twilioAccountSid(params.value);
    if (accountSid !== credential.account) {
      this.metrics.foreignAccounts.inc({ provider: context.provider });
      this.metrics.callbacks.inc({ provider: context.provider, result: 'foreign_account' });
      this.logger.warn(
        { credentialId: credential.id, accountSid: accountSid?.slice(0, 64) ?? null },
        "Twilio callback of another AccountSid than the credential's refused",
      );
      throw InvalidInputError.field(
        CallbackErrorCode.AccountMismatch,
        'AccountSid',
        "is not the credential's account",
      );
    }
    const query = new URL(request.url, 'http://x').searchParams.get('ums_message_id') ?? undefined;
    return parseTwilioCallback(params.value, { umsMessageId: query }, context);
  }

  /**
   * SNS: the envelope is signed by AWS with the certificate at SigningCertURL (an SNS host only);
   * the topic must be the credential's, or anyone's topic could post for it. A subscription is
   * confirmed once verified; notifications carry SES events.
   */
  private async verifyAndParseSns(
    credential: CallbackCredential,
    request: CallbackRequest,
    context: CallbackContext,
    refuse: Refuse,
  ): Promise<CallbackParse> {
    const json = parseJsonBody(request.rawBody);
    if (!json.ok) return json;
    const parsed = parseSnsEnvelope(json.value);
    if (!parsed.ok) return parsed;
    const { envelope } = parsed;
    if (credential.snsTopicArn === undefined)
      return refuse('credential', 'has no config.snsTopicArn to accept');
    if (!constantTimeEquals(envelope.topicArn, credential.snsTopicArn)) {
      return refuse('TopicArn', 'is not the credential topic');
    }
    const certificate = await this.sns.certificate(envelope.signingCertUrl);
    if (!snsSignatureMatches(envelope, certificate)) {
      return refuse('Signature', 'does not verify with the SNS signing certificate');
    }
    switch (envelope.type) {
      case 'SubscriptionConfirmation':
        await this.sns.confirmSubscription(envelope.subscribeUrl ?? '');
        return { ok: true, events: [], ignored: 1 };
      case 'UnsubscribeConfirmation':
        return { ok: true, events: [], ignored: 1 };
      case 'Notification':
        return parseSesEvent(envelope.message, context);
    }
  }

  private async publish(provider: Provider, events: readonly ProviderEventV1[]): Promise<void> {
    if (events.length === 0) return;
    const started = process.hrtime.bigint();
    try {
      // Rejects after INGEST_PUBLISH_TIMEOUT_MS too (the publisher's watchdog).
      await this.publisher.publish(events);
    } catch (error: unknown) {
      this.metrics.callbacks.inc({ provider, result: 'unavailable' });
      throw new UnavailableError(
        CallbackErrorCode.KafkaUnavailable,
        `callback not stored, retry later: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    this.metrics.seconds.observe({ provider }, Number(process.hrtime.bigint() - started) / 1e9);
  }
}

/** A form body as ordered name/value pairs (a name may repeat); bad UTF-8 or encoding is refused. */
function formParams(
  raw: Buffer,
): { ok: true; value: [string, string][] } | { ok: false; issues: FieldIssue[] } {
  const text = raw.toString('utf8');
  if (text.includes('\uFFFD')) {
    return { ok: false, issues: [{ field: '(body)', reason: 'must be UTF-8 form data' }] };
  }
  return { ok: true, value: [...new URLSearchParams(text).entries()] };
}
