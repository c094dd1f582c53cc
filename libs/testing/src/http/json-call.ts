import { ALL_SCOPES, type Scope } from '@ums/contracts';
import { TEST_OPERATOR_KEY } from '../pipeline/service-env';

/** An HTTP answer with its JSON body. */
export interface JsonAnswer {
  readonly status: number;
  /** The parsed body of a JSON answer; empty for any other. */
  readonly body: Record<string, unknown>;
  readonly text: string;
}

/** The Authorization header carrying `key`. */
export function bearer(key: string): { authorization: string } {
  return { authorization: `Bearer ${key}` };
}

/**
 * One JSON request to a service under test, as its API clients send it, with `key` as its bearer token
 * and any other `headers` (an Idempotency-Key, X-Ums-Tenant).
 */
export async function jsonCall(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  key?: string,
  headers: Readonly<Record<string, string>> = {},
): Promise<JsonAnswer> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(key === undefined ? {} : bearer(key)),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const json = (response.headers.get('content-type') ?? '').includes('json') && text !== '';
  return { status: response.status, body: json ? (JSON.parse(text) as Record<string, unknown>) : {}, text };
}

/**
 * A new API key of `tenantId` (every scope unless `scopes` says otherwise), made with the test operator
 * key through the campaign-scheduler at `schedulerUrl`, as an operator would.
 */
export async function createTenantKey(
  schedulerUrl: string,
  tenantId: string,
  scopes: readonly Scope[] = ALL_SCOPES,
): Promise<string> {
  const response = await fetch(`${schedulerUrl}/v1/api-keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-ums-tenant': tenantId, ...bearer(TEST_OPERATOR_KEY) },
    body: JSON.stringify({ name: `test ${tenantId}`, scopes }),
  });
  const body = (await response.json()) as { key?: string };
  if (response.status !== 201 || typeof body.key !== 'string') {
    throw new Error(`Creating a key for ${tenantId} answered ${response.status}: ${JSON.stringify(body)}`);
  }
  return body.key;
}
