import { Injectable } from '@nestjs/common';
import { Channel } from '@ums/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CredentialsService } from '../credentials/credentials.service';
import { bearerToken, headerValue, isRecord, nonEmptyString, secretMatches } from '../sending/auth-headers';
import { ProviderIds } from '../sending/provider-ids';
import { SendGate } from '../sending/send-gate.service';
import { StatsService } from '../stats/stats.service';
import { simulatorNow } from '../simulator-clock';
import { WhatsAppAnswers } from './whatsapp-responses';

interface WhatsAppSend {
  readonly to: string;
  readonly template: boolean;
  readonly messageId: string | undefined;
}

/** POST /{version}/{phoneNumberId}/messages, as WhatsApp Cloud API answers it. */
@Injectable()
export class WhatsAppService {
  constructor(
    private readonly credentials: CredentialsService,
    private readonly gate: SendGate,
    private readonly stats: StatsService,
  ) {}

  async send(phoneNumberId: string, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const credential = this.credentials.whatsApp(phoneNumberId);
    if (credential === undefined) {
      this.stats.noteUnroutable();
      const answer = WhatsAppAnswers.unknownPhoneNumber(phoneNumberId);
      return void reply.status(answer.status).send(answer.body);
    }
    const stats = this.stats.of(credential);
    const token = bearerToken(headerValue(request.headers.authorization));
    if (!secretMatches(credential.secret, token)) {
      this.stats.count(credential, stats, 'authFailures', 1, simulatorNow());
      const answer = WhatsAppAnswers.invalidToken();
      return void reply.status(answer.status).send(answer.body);
    }
    const parsed = parseSend(request.body);
    if (typeof parsed === 'string') {
      this.stats.count(credential, stats, 'invalidRequests', 1, simulatorNow());
      return this.gate.reply(credential, reply, 400, WhatsAppAnswers.invalidParameter(parsed).body);
    }
    const item = {
      messageId: parsed.messageId,
      to: parsed.to,
      from: phoneNumberId,
      channel: Channel.WhatsApp,
    };
    const outcome = this.gate.decide(credential, [item], ProviderIds.wamid);
    let answer;
    switch (outcome.kind) {
      case 'timeout':
        return this.gate.hold(reply);
      case 'error5xx':
        answer = WhatsAppAnswers.serverError();
        break;
      case 'throttled':
        answer = WhatsAppAnswers.throttled();
        break;
      case 'processed': {
        const result = outcome.items[0];
        if (result?.kind === 'accepted')
          answer = WhatsAppAnswers.accepted(parsed.to, result.providerMessageId, parsed.template);
        else if (result?.kind === 'throttled') answer = WhatsAppAnswers.throttled();
        else answer = WhatsAppAnswers.undeliverable();
        break;
      }
    }
    return this.gate.reply(credential, reply, answer.status, answer.body);
  }
}

/** The few checks Meta would refuse a send for; a string names the problem. */
function parseSend(body: unknown): WhatsAppSend | string {
  if (!isRecord(body)) return 'The request body must be a JSON object';
  if (body['messaging_product'] !== 'whatsapp') return 'The parameter messaging_product is required.';
  if (!nonEmptyString(body['to'])) return 'The parameter to is required.';
  const type = body['type'] ?? 'text';
  if (typeof type !== 'string') return 'Param type must be a string';
  const content = body[type];
  if (!isRecord(content)) return `The parameter ${type} is required.`;
  if (type === 'text' && !nonEmptyString(content['body'])) return 'The parameter text.body is required.';
  if (type === 'template' && !nonEmptyString(content['name']))
    return 'The parameter template.name is required.';
  const data = body['biz_opaque_callback_data'];
  if (data !== undefined && (typeof data !== 'string' || data.length > 512)) {
    return 'Param biz_opaque_callback_data must be a string of at most 512 characters';
  }
  return { to: body['to'], template: type === 'template', messageId: data };
}
