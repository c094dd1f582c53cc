import { Injectable } from '@nestjs/common';
import { sendAnswer } from '../sending/provider-answer';
import { Channel } from '@ums/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CredentialsService } from '../credentials/credentials.service';
import { headerValue, isRecord, nonEmptyString } from '../sending/auth-headers';
import { MAX_BULK_MESSAGES } from '../sending/bulk-limits';
import { ProviderIds } from '../sending/provider-ids';
import { SendGate, type SendItem } from '../sending/send-gate.service';
import { StatsService } from '../stats/stats.service';
import { simulatorNow } from '../simulator-clock';
import { type MittoAnswer, MittoAnswers, type MittoItemResult } from './mitto-responses';

interface MittoBulk {
  readonly from: string;
  readonly items: SendItem[];
}

/** POST /sms/bulk: per-message results, the sender and API key pick the credential. */
@Injectable()
export class MittoService {
  constructor(
    private readonly credentials: CredentialsService,
    private readonly gate: SendGate,
    private readonly stats: StatsService,
  ) {}

  async send(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const apiKey = headerValue(request.headers['x-mitto-api-key']);
    if (apiKey === undefined || apiKey === '') {
      this.stats.noteUnroutable();
      return sendAnswer(reply, MittoAnswers.unauthorized());
    }
    const parsed = parseBulk(request.body);
    if (typeof parsed === 'string') {
      this.stats.noteUnroutable();
      return sendAnswer(reply, MittoAnswers.invalidRequest(parsed));
    }
    const credential = this.credentials.mitto(parsed.from, apiKey);
    if (credential === undefined) {
      this.stats.noteUnroutable();
      return sendAnswer(reply, MittoAnswers.invalidSender(parsed.from));
    }
    if (credential.secret !== undefined && credential.secret !== apiKey) {
      this.stats.count(
        credential,
        this.stats.of(credential),
        'authFailures',
        parsed.items.length,
        simulatorNow(),
      );
      return sendAnswer(reply, MittoAnswers.unauthorized());
    }
    const outcome = this.gate.decide(credential, parsed.items, ProviderIds.mittoId);
    let result: MittoAnswer;
    switch (outcome.kind) {
      case 'timeout':
        return this.gate.hold(reply);
      case 'error5xx':
        result = MittoAnswers.temporaryError();
        break;
      case 'throttled':
        result = MittoAnswers.throttled();
        break;
      case 'processed': {
        const results: MittoItemResult[] = new Array<MittoItemResult>(parsed.items.length);
        outcome.items.forEach((item, i) => {
          const reference = parsed.items[i]?.messageId ?? null;
          results[i] =
            item.kind === 'accepted'
              ? { reference, status: 'accepted', id: item.providerMessageId }
              : item.kind === 'throttled'
                ? MittoAnswers.itemThrottled(reference)
                : MittoAnswers.invalidNumber(reference);
        });
        result = MittoAnswers.results(results);
        break;
      }
    }
    return this.gate.reply(credential, reply, result.status, result.body, result.headers);
  }
}

/** Shape checks only (this is the hot path of bulk sends); a string names the problem. */
function parseBulk(body: unknown): MittoBulk | string {
  if (!isRecord(body)) return 'The request body must be a JSON object';
  const from = body['from'];
  if (!nonEmptyString(from)) return 'from is required';
  const messages = body['messages'];
  if (!Array.isArray(messages) || messages.length === 0 || messages.length > MAX_BULK_MESSAGES) {
    return `messages must list 1 to ${MAX_BULK_MESSAGES} messages`;
  }
  const items = new Array<SendItem>(messages.length);
  for (let i = 0; i < messages.length; i++) {
    const m: unknown = messages[i];
    if (!isRecord(m) || !nonEmptyString(m['to']) || typeof m['text'] !== 'string') {
      return `messages[${i}] needs to and text`;
    }
    const reference = m['reference'];
    if (reference !== undefined && typeof reference !== 'string')
      return `messages[${i}].reference must be a string`;
    items[i] = { messageId: reference, to: m['to'], from, channel: Channel.Sms };
  }
  return { from, items };
}
