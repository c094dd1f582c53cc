import { Injectable } from '@nestjs/common';
import { sendAnswer } from '../sending/provider-answer';
import { Channel } from '@ums/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CredentialsService } from '../credentials/credentials.service';
import {
  basicCredentials,
  headerValue,
  isRecord,
  nonEmptyString,
  secretMatches,
} from '../sending/auth-headers';
import { ProviderIds } from '../sending/provider-ids';
import { SendGate } from '../sending/send-gate.service';
import { StatsService } from '../stats/stats.service';
import { simulatorNow } from '../simulator-clock';
import { type TwilioAnswer, TwilioAnswers } from './twilio-responses';

/** The query parameter of StatusCallback that carries our message id. */
export const TWILIO_MESSAGE_ID_PARAM = 'ums_message_id';

interface TwilioSend {
  readonly to: string;
  readonly from: string | undefined;
  readonly messagingServiceSid: string | undefined;
  readonly body: string;
  readonly statusCallback: string | undefined;
  readonly messageId: string | undefined;
}

/** POST /2010-04-01/Accounts/{AccountSid}/Messages.json, as Twilio answers it. */
@Injectable()
export class TwilioService {
  constructor(
    private readonly credentials: CredentialsService,
    private readonly gate: SendGate,
    private readonly stats: StatsService,
  ) {}

  async send(accountSid: string, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const form = isRecord(request.body) ? request.body : {};
    const from = stringParam(form['From']);
    const credential = this.credentials.twilio(accountSid, from ?? stringParam(form['MessagingServiceSid']));
    const auth = basicCredentials(headerValue(request.headers.authorization));
    if (credential === undefined) {
      this.stats.noteUnroutable();
      return sendAnswer(reply, TwilioAnswers.authenticate());
    }
    const stats = this.stats.of(credential);
    // Basic auth is AccountSid:AuthToken (an API key SID:secret pair is accepted too).
    if (auth === undefined || !secretMatches(credential.secret, auth.password)) {
      this.stats.count(credential, stats, 'authFailures', 1, simulatorNow());
      return sendAnswer(reply, TwilioAnswers.authenticate());
    }
    const parsed = parseSend(form);
    if (!('to' in parsed)) {
      this.stats.count(credential, stats, 'invalidRequests', 1, simulatorNow());
      return this.gate.reply(credential, reply, parsed.status, parsed.body);
    }
    const item = {
      messageId: parsed.messageId,
      to: parsed.to,
      from: parsed.from ?? parsed.messagingServiceSid,
      channel: parsed.to.startsWith('whatsapp:') ? Channel.WhatsApp : Channel.Sms,
      callbackUrl: parsed.statusCallback,
      body: parsed.body,
    };
    const outcome = this.gate.decide(credential, [item], ProviderIds.twilioSid);
    let result: TwilioAnswer;
    switch (outcome.kind) {
      case 'timeout':
        return this.gate.hold(reply);
      case 'error5xx':
        result = TwilioAnswers.serverError();
        break;
      case 'throttled':
        result = TwilioAnswers.tooManyRequests();
        break;
      case 'processed': {
        const first = outcome.items[0];
        if (first?.kind === 'accepted') {
          result = TwilioAnswers.created({
            accountSid,
            sid: first.providerMessageId,
            to: parsed.to,
            from: parsed.from,
            messagingServiceSid: parsed.messagingServiceSid,
            body: parsed.body,
          });
        } else if (first?.kind === 'throttled') result = TwilioAnswers.tooManyRequests();
        else result = TwilioAnswers.invalidTo(parsed.to);
        break;
      }
    }
    return this.gate.reply(credential, reply, result.status, result.body);
  }
}

function stringParam(value: unknown): string | undefined {
  return nonEmptyString(value) ? value : undefined;
}

/** Twilio's own refusals of a Messages create request; otherwise the send. */
function parseSend(form: Record<string, unknown>): TwilioSend | TwilioAnswer {
  const to = stringParam(form['To']);
  if (to === undefined) return TwilioAnswers.missingTo();
  const from = stringParam(form['From']);
  const messagingServiceSid = stringParam(form['MessagingServiceSid']);
  if (from === undefined && messagingServiceSid === undefined) return TwilioAnswers.missingFrom();
  const body = stringParam(form['Body']) ?? '';
  if (body === '' && form['MediaUrl'] === undefined && form['ContentSid'] === undefined) {
    return TwilioAnswers.missingBody();
  }
  const statusCallback = stringParam(form['StatusCallback']);
  let messageId: string | undefined;
  if (statusCallback !== undefined) {
    try {
      messageId = new URL(statusCallback).searchParams.get(TWILIO_MESSAGE_ID_PARAM) ?? undefined;
    } catch {
      return TwilioAnswers.invalidStatusCallback();
    }
  }
  return { to, from, messagingServiceSid, body, statusCallback, messageId };
}
