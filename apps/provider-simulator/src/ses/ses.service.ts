import { Injectable } from '@nestjs/common';
import { sendAnswer } from '../sending/provider-answer';
import { Channel } from '@ums/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CredentialsService } from '../credentials/credentials.service';
import { headerValue, isRecord, nonEmptyString } from '../sending/auth-headers';
import { ProviderIds } from '../sending/provider-ids';
import { SendGate } from '../sending/send-gate.service';
import { StatsService } from '../stats/stats.service';
import { simulatorNow } from '../simulator-clock';
import { type SesAnswer, SesAnswers } from './ses-responses';

/** The EmailTags entry that carries our message id. */
export const SES_MESSAGE_ID_TAG = 'ums_message_id';
const SIGV4 = 'AWS4-HMAC-SHA256';
// Credential=<access key id>/<yyyymmdd>/<region>/ses/aws4_request
const SCOPE = /Credential=([^/,\s]+)\/\d{8}\/([^/,\s]+)\/ses\/aws4_request/;

interface SesSend {
  readonly from: string;
  readonly to: readonly string[];
  readonly messageId: string | undefined;
}

/**
 * POST /v2/email/outbound-emails (SendEmail), as SES v2 answers it. The signature is not
 * verified: the Authorization header must be SigV4 and, when the credential has a secret
 * ("accessKeyId:secretAccessKey"), name its access key id.
 */
@Injectable()
export class SesService {
  constructor(
    private readonly credentials: CredentialsService,
    private readonly gate: SendGate,
    private readonly stats: StatsService,
  ) {}

  async send(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const authorization = headerValue(request.headers.authorization);
    if (authorization === undefined || !authorization.startsWith(SIGV4)) {
      this.stats.noteUnroutable();
      return sendAnswer(reply, SesAnswers.missingAuthentication());
    }
    const scope = SCOPE.exec(authorization);
    const region = scope?.[2];
    const parsed = parseSend(request.body);
    if (typeof parsed === 'string') {
      this.stats.noteUnroutable();
      return sendAnswer(reply, SesAnswers.badRequest(parsed));
    }
    const credential = this.credentials.ses(parsed.from, region);
    if (credential === undefined) {
      this.stats.noteUnroutable();
      return sendAnswer(reply, SesAnswers.unverifiedIdentity(parsed.from, region));
    }
    const stats = this.stats.of(credential);
    const accessKeyId = credential.secret?.split(':')[0];
    if (accessKeyId !== undefined && scope?.[1] !== accessKeyId) {
      this.stats.count(credential, stats, 'authFailures', 1, simulatorNow());
      return sendAnswer(reply, SesAnswers.unrecognizedClient());
    }
    // One SendEmail is one message; it fails permanently if any recipient does.
    const rejected = parsed.to.find((address) => credential.permanentFailures.has(address));
    const item = {
      messageId: parsed.messageId,
      to: rejected ?? parsed.to[0] ?? '',
      from: parsed.from,
      channel: Channel.Email,
    };
    const outcome = this.gate.decide(credential, [item], ProviderIds.sesMessageId);
    let result: SesAnswer;
    switch (outcome.kind) {
      case 'timeout':
        return this.gate.hold(reply);
      case 'error5xx':
        result = SesAnswers.serverError();
        break;
      case 'throttled':
        result = SesAnswers.tooManyRequests();
        break;
      case 'processed': {
        const first = outcome.items[0];
        if (first?.kind === 'accepted') result = SesAnswers.sent(first.providerMessageId);
        else if (first?.kind === 'throttled') result = SesAnswers.tooManyRequests();
        else result = SesAnswers.addressRejected();
        break;
      }
    }
    return this.gate.reply(credential, reply, result.status, result.body, result.headers);
  }
}

/** SES's own refusals of a SendEmail request; a string is the BadRequestException message. */
function parseSend(body: unknown): SesSend | string {
  if (!isRecord(body)) return 'The request body must be a JSON object';
  const from = body['FromEmailAddress'];
  if (!nonEmptyString(from)) return 'Missing required parameter FromEmailAddress';
  const destination = body['Destination'];
  const to = isRecord(destination) ? destination['ToAddresses'] : undefined;
  if (!Array.isArray(to) || to.length === 0 || to.length > 50 || !to.every(nonEmptyString)) {
    return 'Destination.ToAddresses must list 1 to 50 addresses';
  }
  if (!isRecord(body['Content'])) return 'Missing required parameter Content';
  const tags = body['EmailTags'];
  let messageId: string | undefined;
  if (tags !== undefined) {
    if (!Array.isArray(tags)) return 'EmailTags must be a list';
    for (const tag of tags) {
      if (isRecord(tag) && tag['Name'] === SES_MESSAGE_ID_TAG && nonEmptyString(tag['Value']))
        messageId = tag['Value'];
    }
  }
  return { from, to, messageId };
}
