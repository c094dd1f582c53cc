import type { Provider } from '@ums/contracts';
import type { LoadedCredential, StatusLookup, StatusQuery } from './provider-adapter';
import type { ProviderResponse } from './provider-http.client';
import { bodyExcerpt, codeField, isSuccess, itemsByKey, jsonObject, stringField } from './provider-request';

/** Message ids per native lookup request. */
export const SIMULATOR_MAX_LOOKUP_BATCH = 1000;

const STATUSES = new Set(['sent', 'delivered', 'read', 'failed']);

/** POST {base}/sim/v1/messages/lookup {credentialId, messageIds} (Bearer key when the credential has one). */
export function simulatorLookupRequest(
  credential: LoadedCredential<Provider.Simulator>,
  queries: readonly StatusQuery[],
): { path: string; headers: Record<string, string>; body: string } {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (credential.secret !== undefined) headers['authorization'] = `Bearer ${credential.secret.reveal()}`;
  return {
    path: '/sim/v1/messages/lookup',
    headers,
    body: JSON.stringify({ credentialId: credential.id, messageIds: queries.map((q) => q.messageId) }),
  };
}

/**
 * The simulator's answer per query: `found` with a status is accepted, `found: false` is
 * not-received (unless `tracked: false`: the simulator dropped records), anything else unknown.
 */
export function simulatorLookups(
  queries: readonly StatusQuery[],
  response: ProviderResponse,
): StatusLookup[] {
  if (!isSuccess(response.status)) {
    const detail = `lookup answered ${bodyExcerpt(response.status, response.body)}`;
    return queries.map((q) => ({ messageId: q.messageId, kind: 'unknown', detail }));
  }
  const items = itemsByKey(jsonObject(response.body)?.['results'], 'messageId');
  return queries.map((q): StatusLookup => {
    const item = items.get(q.messageId);
    if (item === undefined)
      return { messageId: q.messageId, kind: 'unknown', detail: 'not in the lookup answer' };
    if (item['found'] === false) {
      return item['tracked'] === false
        ? { messageId: q.messageId, kind: 'unknown', detail: 'the simulator no longer tracks it' }
        : { messageId: q.messageId, kind: 'not-received' };
    }
    const status = stringField(item, 'status');
    if (item['found'] !== true || status === undefined || !STATUSES.has(status)) {
      return {
        messageId: q.messageId,
        kind: 'unknown',
        detail: `unreadable lookup item (status ${status ?? 'missing'})`,
      };
    }
    const code = codeField(item, 'code');
    return {
      messageId: q.messageId,
      kind: 'accepted',
      providerMessageId: stringField(item, 'providerMessageId') ?? null,
      status: status as 'sent' | 'delivered' | 'read' | 'failed',
      ...(code === undefined ? {} : { errorCode: code }),
    };
  });
}
