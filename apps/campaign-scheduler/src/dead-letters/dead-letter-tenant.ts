import { type DeadLetterV1, SendRetryTiers, Topics } from '@ums/contracts';

/** Topics whose payload carries the tenant as `tenantId` (checked against every topic in the spec). */
export const TENANT_PAYLOAD_TOPICS: ReadonlySet<string> = new Set([
  Topics.sendRequests.name,
  Topics.runRequested.name,
  Topics.runLifecycle.name,
  Topics.batches.name,
  Topics.prioritySends.name,
  ...SendRetryTiers.map((tier) => tier.name),
  Topics.messageStatus.name,
  Topics.inboundMessages.name,
  Topics.subscriberAlerts.name,
]);

/** Topics whose partition key is the tenant (Topics.*.keyOf). */
export const TENANT_KEY_TOPICS: ReadonlySet<string> = new Set([Topics.sendRequests.name]);

/** As long as the tenant columns are (VARCHAR(64)). */
const MAX_TENANT_LENGTH = 64;

const isTenant = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= MAX_TENANT_LENGTH;

/**
 * The tenant a dead letter belongs to, read from the original message: the payload's `tenantId` where
 * the source topic's payload carries one, else the key where the topic is keyed by tenant. Null when
 * the topic carries no tenant (provider events, webhook deliveries), is of another namespace
 * (`logicalSource` undefined), or the payload cannot be read (not JSON, base64 bytes, no usable
 * `tenantId`) and the key names no tenant: such an entry is for operators only.
 */
export function deadLetterTenant(letter: DeadLetterV1, logicalSource: string | undefined): string | null {
  if (logicalSource === undefined) return null;
  if (TENANT_PAYLOAD_TOPICS.has(logicalSource)) {
    const fromPayload = payloadTenant(letter);
    if (fromPayload !== null) return fromPayload;
  }
  if (TENANT_KEY_TOPICS.has(logicalSource) && isTenant(letter.key)) return letter.key;
  return null;
}

function payloadTenant(letter: DeadLetterV1): string | null {
  if (letter.valueEncoding !== 'utf8' || letter.value === undefined) return null;
  let payload: unknown;
  try {
    payload = JSON.parse(letter.value);
  } catch {
    // Not JSON: the entry's error code says so already; the tenant is unknown.
    return null;
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return null;
  const tenantId: unknown = (payload as Record<string, unknown>)['tenantId'];
  return isTenant(tenantId) ? tenantId : null;
}
