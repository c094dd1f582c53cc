import { Injectable } from '@nestjs/common';
import { sendAnswer } from '../sending/provider-answer';
import { Channel, Provider } from '@ums/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CredentialsService } from '../credentials/credentials.service';
import { bearerToken, headerValue, isRecord, nonEmptyString } from '../sending/auth-headers';
import { MAX_BULK_MESSAGES } from '../sending/bulk-limits';
import { ProviderIds } from '../sending/provider-ids';
import { SendGate, type SendItem } from '../sending/send-gate.service';
import { StatsService } from '../stats/stats.service';
import { simulatorNow } from '../simulator-clock';
import { type NativeAnswer, NativeAnswers, type NativeItemResult } from './native-responses';

const CHANNELS: ReadonlySet<string> = new Set(Object.values(Channel));

interface NativeBulk {
  readonly credentialId: string;
  readonly items: SendItem[];
  readonly messageIds: string[];
}

/** POST /sim/v1/messages: the simulator's own bulk API; the body names our credential id. */
@Injectable()
export class NativeService {
  constructor(
    private readonly credentials: CredentialsService,
    private readonly gate: SendGate,
    private readonly stats: StatsService,
  ) {}

  async send(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const parsed = parseBulk(request.body);
    if (typeof parsed === 'string') {
      this.stats.noteUnroutable();
      return sendAnswer(reply, NativeAnswers.invalidRequest(parsed));
    }
    const credential = this.credentials.find(parsed.credentialId);
    if (credential === undefined || credential.provider !== Provider.Simulator) {
      this.stats.noteUnroutable();
      return sendAnswer(reply, NativeAnswers.unknownCredential(parsed.credentialId));
    }
    // The API key is optional: a credential without a secret takes any request.
    if (
      credential.secret !== undefined &&
      bearerToken(headerValue(request.headers.authorization)) !== credential.secret
    ) {
      this.stats.count(
        credential,
        this.stats.of(credential),
        'authFailures',
        parsed.items.length,
        simulatorNow(),
      );
      return sendAnswer(reply, NativeAnswers.unauthorized());
    }
    const outcome = this.gate.decide(credential, parsed.items, ProviderIds.simId);
    let result: NativeAnswer;
    switch (outcome.kind) {
      case 'timeout':
        return this.gate.hold(reply);
      case 'error5xx':
        result = NativeAnswers.temporaryError();
        break;
      case 'throttled':
        result = NativeAnswers.throttled();
        break;
      case 'processed': {
        const results = new Array<NativeItemResult>(parsed.items.length);
        outcome.items.forEach((item, i) => {
          const messageId = parsed.messageIds[i] ?? '';
          results[i] =
            item.kind === 'accepted'
              ? { messageId, status: 'accepted', providerMessageId: item.providerMessageId }
              : item.kind === 'throttled'
                ? NativeAnswers.itemThrottled(messageId)
                : NativeAnswers.invalidNumber(messageId);
        });
        result = NativeAnswers.results(results);
        break;
      }
    }
    return this.gate.reply(credential, reply, result.status, result.body, result.headers);
  }
}

/** Shape checks only (this is the hot path of bulk sends); a string names the problem. */
function parseBulk(body: unknown): NativeBulk | string {
  if (!isRecord(body)) return 'The request body must be a JSON object';
  const credentialId = body['credentialId'];
  if (!nonEmptyString(credentialId)) return 'credentialId is required';
  const messages = body['messages'];
  if (!Array.isArray(messages) || messages.length === 0 || messages.length > MAX_BULK_MESSAGES) {
    return `messages must list 1 to ${MAX_BULK_MESSAGES} messages`;
  }
  const items = new Array<SendItem>(messages.length);
  const messageIds = new Array<string>(messages.length);
  for (let i = 0; i < messages.length; i++) {
    const m: unknown = messages[i];
    if (!isRecord(m) || !nonEmptyString(m['messageId']) || !nonEmptyString(m['to'])) {
      return `messages[${i}] needs messageId and to`;
    }
    const channel = m['channel'] ?? Channel.Sms;
    if (typeof channel !== 'string' || !CHANNELS.has(channel)) {
      return `messages[${i}].channel must be one of ${[...CHANNELS].join(', ')}`;
    }
    messageIds[i] = m['messageId'];
    items[i] = { messageId: m['messageId'], to: m['to'], from: undefined, channel: channel as Channel };
  }
  return { credentialId, items, messageIds };
}
