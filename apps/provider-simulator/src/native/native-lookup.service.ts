import { Injectable } from '@nestjs/common';
import { Provider } from '@ums/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CredentialsService } from '../credentials/credentials.service';
import { MessageRecords } from '../records/message-records.service';
import { bearerToken, headerValue, isRecord, nonEmptyString } from '../sending/auth-headers';
import { MAX_BULK_MESSAGES } from '../sending/bulk-limits';
import { sendAnswer } from '../sending/provider-answer';
import { NativeAnswers } from './native-responses';

/** One answer of a native lookup (docs/provider-shapes.md section 5). */
export type NativeLookupResult =
  | {
      messageId: string;
      found: true;
      providerMessageId: string;
      status: 'sent' | 'delivered' | 'read' | 'failed';
      code?: string;
    }
  | { messageId: string; found: false; tracked?: false };

/**
 * POST /sim/v1/messages/lookup {credentialId, messageIds}: what the simulator recorded of each of
 * our message ids on that credential. Read-only: never counted as a send, never throttled.
 */
@Injectable()
export class NativeLookupService {
  constructor(
    private readonly credentials: CredentialsService,
    private readonly records: MessageRecords,
  ) {}

  lookup(request: FastifyRequest, reply: FastifyReply): void {
    const parsed = parseLookup(request.body);
    if (typeof parsed === 'string') return sendAnswer(reply, NativeAnswers.invalidRequest(parsed));
    const credential = this.credentials.find(parsed.credentialId);
    if (credential === undefined || credential.provider !== Provider.Simulator) {
      return sendAnswer(reply, NativeAnswers.unknownCredential(parsed.credentialId));
    }
    if (
      credential.secret !== undefined &&
      bearerToken(headerValue(request.headers.authorization)) !== credential.secret
    ) {
      return sendAnswer(reply, NativeAnswers.unauthorized());
    }
    const results = parsed.messageIds.map((messageId): NativeLookupResult => {
      const found = this.records.byMessageId(credential.id, messageId);
      if (found.kind === 'none') return { messageId, found: false };
      if (found.kind === 'untracked') return { messageId, found: false, tracked: false };
      const { record } = found;
      return {
        messageId,
        found: true,
        providerMessageId: record.providerMessageId,
        status: record.status,
        ...(record.status === 'failed' ? { code: 'UNDELIVERABLE' } : {}),
      };
    });
    return sendAnswer(reply, { status: 200, body: { results } });
  }
}

function parseLookup(body: unknown): { credentialId: string; messageIds: string[] } | string {
  if (!isRecord(body)) return 'The request body must be a JSON object';
  const credentialId = body['credentialId'];
  if (!nonEmptyString(credentialId)) return 'credentialId is required';
  const messageIds = body['messageIds'];
  if (
    !Array.isArray(messageIds) ||
    messageIds.length === 0 ||
    messageIds.length > MAX_BULK_MESSAGES ||
    !messageIds.every(nonEmptyString)
  ) {
    return `messageIds must list 1 to ${MAX_BULK_MESSAGES} message ids`;
  }
  return { credentialId, messageIds };
}
