import { Injectable } from '@nestjs/common';
import { Channel, Provider } from '@ums/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CredentialsService } from '../credentials/credentials.service';
import { MessageRecords } from '../records/message-records.service';
import { headerValue, isRecord, nonEmptyString } from '../sending/auth-headers';
import { MAX_BULK_MESSAGES } from '../sending/bulk-limits';
import { sendAnswer } from '../sending/provider-answer';
import { ProviderIds } from '../sending/provider-ids';
import { type GateOutcome, SendGate, type SendItem } from '../sending/send-gate.service';
import { simulatorNow } from '../simulator-clock';
import { StatsService } from '../stats/stats.service';
import { type MittoAnswer, MittoAnswers, type MittoMessageResult } from './mitto-responses';

/** One parsed send: the sender, the text, one item per receiver. */
interface MittoSend {
  readonly from: string;
  readonly text: string;
  readonly items: SendItem[];
}

/**
 * Mitto's SMS API: POST /sms (one receiver) and POST /smsbulk (one text to several receivers, one
 * `reference` for all); the sender and the API key pick the credential. GET /sms/status answers
 * what the simulator recorded for a `reference` (our convention: Mitto documents no lookup).
 */
@Injectable()
export class MittoService {
  constructor(
    private readonly credentials: CredentialsService,
    private readonly gate: SendGate,
    private readonly stats: StatsService,
    private readonly records: MessageRecords,
  ) {}

  async send(request: FastifyRequest, reply: FastifyReply, bulk: boolean): Promise<void> {
    const apiKey = headerValue(request.headers['x-mitto-api-key']);
    if (apiKey === undefined || apiKey === '') {
      this.stats.noteUnroutable();
      return sendAnswer(reply, MittoAnswers.unauthorized());
    }
    const parsed = parseSend(request.body, bulk);
    if (!('items' in parsed)) {
      this.stats.noteUnroutable();
      return sendAnswer(reply, parsed);
    }
    const credential = this.credentials.mitto(parsed.from, apiKey);
    if (credential === undefined) {
      this.stats.noteUnroutable();
      return sendAnswer(reply, MittoAnswers.invalidSender());
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
    if (outcome.kind === 'timeout') return this.gate.hold(reply);
    const result = answerOf(parsed, outcome, bulk);
    return this.gate.reply(credential, reply, result.status, result.body, result.headers);
  }

  /**
   * GET /sms/status?reference=<ours>: the send the simulator recorded for the reference on a
   * credential of this API key (its id and the furthest status reached), or 404 when none was accepted.
   */
  status(request: FastifyRequest, reply: FastifyReply): void {
    const apiKey = headerValue(request.headers['x-mitto-api-key']);
    const query = isRecord(request.query) ? request.query : {};
    const reference = query['reference'];
    // The key names the account: the credentials with this secret, else those that take any key.
    const mitto = this.credentials.list().filter((c) => c.provider === Provider.Mitto);
    const keyed = mitto.filter((c) => c.secret !== undefined && c.secret === apiKey);
    const candidates = keyed.length > 0 ? keyed : mitto.filter((c) => c.secret === undefined);
    if (apiKey === undefined || apiKey === '' || candidates.length === 0) {
      return sendAnswer(reply, MittoAnswers.unauthorized());
    }
    if (!nonEmptyString(reference)) return sendAnswer(reply, MittoAnswers.badStatusQuery());
    let untracked = false;
    for (const credential of candidates) {
      const found = this.records.byMessageId(credential.id, reference);
      if (found.kind === 'untracked') untracked = true;
      if (found.kind !== 'found') continue;
      const { record } = found;
      const failed = record.status === 'failed';
      return sendAnswer(reply, {
        status: 200,
        body: {
          reference,
          id: record.providerMessageId,
          to: record.to.replace(/^\+/, ''),
          status: failed ? 'undelivered' : record.status,
          ...(failed ? { code: 'UNDELIVERABLE' } : {}),
          timestamp: new Date(record.updatedAt).toISOString(),
          responseCode: 0,
          responseText: 'OK',
        },
      });
    }
    // Past the simulator's record budget a miss proves nothing: a server error, retried later.
    return sendAnswer(
      reply,
      untracked ? MittoAnswers.internalError() : MittoAnswers.unknownReference(reference),
    );
  }
}

/** The answer of a send the gate decided (a timeout is held, not answered). */
function answerOf(
  parsed: MittoSend,
  outcome: Exclude<GateOutcome, { kind: 'timeout' }>,
  bulk: boolean,
): MittoAnswer {
  if (outcome.kind === 'error5xx') return MittoAnswers.internalError();
  if (outcome.kind === 'throttled') return MittoAnswers.throttled();
  const now = simulatorNow();
  const results: MittoMessageResult[] = outcome.items.map((item, i) => {
    const to = (parsed.items[i] as SendItem).to.slice(1);
    if (item.kind === 'accepted') return { to, id: item.providerMessageId };
    return item.kind === 'throttled'
      ? { to, responseCode: 429, responseText: 'Too many requests' }
      : { to, responseCode: 8, responseText: 'Invalid receiver' };
  });
  if (bulk) return MittoAnswers.bulk(results, now);
  const first = outcome.items[0];
  const result = results[0];
  if (first?.kind === 'throttled') return MittoAnswers.throttled();
  if (first?.kind !== 'accepted' || result === undefined || !('id' in result)) {
    return MittoAnswers.invalidReceiver();
  }
  return MittoAnswers.sent(result.id, result.to, parsed.text.length, now);
}

/** Mitto's own refusals (responseCode 3, 5, 7, 8), else the send. Receivers are E.164 digits. */
function parseSend(body: unknown, bulk: boolean): MittoSend | MittoAnswer {
  if (!isRecord(body)) return MittoAnswers.emptyReceiver();
  const from = body['from'];
  if (!nonEmptyString(from)) return MittoAnswers.emptySender();
  const text = body['text'];
  if (!nonEmptyString(text)) return MittoAnswers.emptyMessage();
  const reference = body['reference'];
  const messageId = typeof reference === 'string' && reference !== '' ? reference : undefined;
  const to = body['to'];
  const receivers = bulk
    ? Array.isArray(to)
      ? (to as unknown[])
      : typeof to === 'string'
        ? to.split(',')
        : []
    : [to];
  if (receivers.length === 0 || receivers.length > MAX_BULK_MESSAGES || !receivers.every(nonEmptyString)) {
    return MittoAnswers.emptyReceiver();
  }
  const items = new Array<SendItem>(receivers.length);
  for (let i = 0; i < receivers.length; i++) {
    const digits = (receivers[i] as string).trim().replace(/^\+/, '');
    if (!/^\d{3,15}$/.test(digits)) return MittoAnswers.invalidReceiver();
    items[i] = { messageId, to: `+${digits}`, from, channel: Channel.Sms, body: text };
  }
  return { from, text, items };
}
