import type { Provider } from '@ums/contracts';
import type { LoadedCredential, StatusLookup, StatusQuery } from './provider-adapter';
import type { ProviderResponse } from './provider-http.client';
import { bodyExcerpt, codeField, isSuccess, jsonObject, stringField } from './provider-request';

const STATUSES: ReadonlyMap<string, 'sent' | 'delivered' | 'failed'> = new Map([
  ['sent', 'sent'],
  ['delivered', 'delivered'],
  ['undelivered', 'failed'],
  ['failed', 'failed'],
]);

/**
 * GET {base}/sms/status?reference=<our message id> with `X-Mitto-API-Key`. Mitto documents no
 * status lookup: this route is our convention, answered by the provider simulator
 * (docs/provider-shapes.md section 4).
 */
export function mittoStatusRequest(
  credential: LoadedCredential<Provider.Mitto>,
  query: StatusQuery,
): { path: string; headers: Record<string, string> } {
  return {
    path: `/sms/status?reference=${encodeURIComponent(query.messageId)}`,
    headers: { 'x-mitto-api-key': credential.secret?.reveal() ?? '', accept: 'application/json' },
  };
}

/**
 * 200 with `responseCode` 0, `id` and a known `status` is accepted; 404 says Mitto never accepted
 * the reference (not-received); anything else leaves the row as it is (unknown).
 */
export function mittoStatusLookup(query: StatusQuery, response: ProviderResponse): StatusLookup {
  const { messageId } = query;
  if (response.status === 404) return { messageId, kind: 'not-received' };
  if (!isSuccess(response.status)) {
    return {
      messageId,
      kind: 'unknown',
      detail: `lookup answered ${bodyExcerpt(response.status, response.body)}`,
    };
  }
  const json = jsonObject(response.body);
  const reported = stringField(json, 'status');
  const status = reported === undefined ? undefined : STATUSES.get(reported);
  const id = stringField(json, 'id');
  if (codeField(json, 'responseCode') !== '0' || status === undefined || id === undefined) {
    return {
      messageId,
      kind: 'unknown',
      detail: `unreadable lookup answer: ${bodyExcerpt(response.status, response.body)}`,
    };
  }
  const code = codeField(json, 'code');
  const timestamp = stringField(json, 'timestamp');
  const at = timestamp === undefined ? Number.NaN : Date.parse(timestamp);
  return {
    messageId,
    kind: 'accepted',
    providerMessageId: id,
    status,
    ...(status === 'failed' && code !== undefined ? { errorCode: code } : {}),
    ...(Number.isNaN(at) ? {} : { at: new Date(at) }),
  };
}
