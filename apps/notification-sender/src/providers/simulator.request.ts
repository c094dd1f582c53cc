import type { Provider } from '@ums/contracts';
import { classifySimulatorItem, classifySimulatorRequestError, type PermanentFailure } from '@ums/domain';
import { SendOutcomeCode } from '@ums/contracts';
import type { LoadedCredential, OutgoingMessage, SendOutcome } from './provider-adapter';
import type { ProviderResponse } from './provider-http.client';
import {
  bodyExcerpt,
  type BulkRequest,
  bulkOutcomes,
  codeField,
  isSuccess,
  bulkItemOutcomes,
  jsonObject,
  objectField,
  outcomeFor,
  retryAfterMs,
  stringField,
  unsendable,
} from './provider-request';

type SimulatorCredential = LoadedCredential<Provider.Simulator>;

/** Messages per simulator request. */
export const SIMULATOR_MAX_BATCH = 1000;

/** What the simulator shows as the text: the text, or the template with its parameters. */
function simulatorText(message: OutgoingMessage): string | undefined {
  const { text, templateName, templateParameters } = message.content;
  if (text !== undefined && text !== '') return text;
  if (templateName === undefined) return undefined;
  return `[template ${templateName}] ${(templateParameters ?? []).join(' | ')}`.trimEnd();
}

/**
 * POST {base}/sim/v1/messages (`Authorization: Bearer <key>` when the credential has a secret):
 * up to 1,000 messages of any channel, each with our id as `messageId`.
 */
export function simulatorRequest(
  credential: SimulatorCredential,
  messages: readonly OutgoingMessage[],
): BulkRequest {
  const refused = new Map<string, PermanentFailure>();
  const items: { messageId: string; to: string; channel: string; text: string }[] = [];
  for (const message of messages) {
    const text = simulatorText(message);
    if (text === undefined)
      refused.set(
        message.messageId,
        unsendable(SendOutcomeCode.ContentInvalid, 'a message needs text or a template'),
      );
    else items.push({ messageId: message.messageId, to: message.recipient, channel: message.channel, text });
  }
  if (items.length === 0) return { request: undefined, refused };
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (credential.secret !== undefined) headers['authorization'] = `Bearer ${credential.secret.reveal()}`;
  return {
    request: {
      path: '/sim/v1/messages',
      headers,
      body: JSON.stringify({ credentialId: credential.id, messages: items }),
    },
    refused,
  };
}

/** Per-item outcomes of a 2xx answer, or the whole request's failure for every sent item. */
export function simulatorOutcomes(
  messages: readonly OutgoingMessage[],
  refused: ReadonlyMap<string, PermanentFailure>,
  response: ProviderResponse,
  nowMs: number,
): SendOutcome[] {
  const json = jsonObject(response.body);
  if (!isSuccess(response.status)) {
    // The simulator's errors are {"error":{"code","message"}}.
    const error = objectField(json, 'error');
    const failure = classifySimulatorRequestError({
      status: response.status,
      code: codeField(error, 'code'),
      message:
        stringField(error, 'message') ??
        stringField(json, 'message') ??
        bodyExcerpt(response.status, response.body),
      retryAfterMs: retryAfterMs(response.headers, nowMs),
    });
    return bulkOutcomes(messages, refused, (message) => outcomeFor(message, failure));
  }
  return bulkItemOutcomes(messages, refused, response, json, {
    keyField: 'messageId',
    providerIdField: 'providerMessageId',
    keyLabel: 'message',
    rejected: (item) =>
      classifySimulatorItem(
        stringField(item, 'code'),
        item?.['retryable'] === true,
        stringField(item, 'message'),
      ),
  });
}
