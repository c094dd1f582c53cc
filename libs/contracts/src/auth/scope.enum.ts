/**
 * What an API principal may do. A tenant's API key or JWT carries some of these; the operator key
 * carries all of them and may act across tenants.
 */
export enum Scope {
  CampaignsRead = 'campaigns:read',
  CampaignsWrite = 'campaigns:write',
  CredentialsRead = 'credentials:read',
  CredentialsWrite = 'credentials:write',
  MessagesRead = 'messages:read',
  /** Send one message or start a bulk send over HTTP (`POST /v1/messages`, `POST /v1/sends`). */
  MessagesSend = 'messages:send',
  OptOutsRead = 'opt-outs:read',
  OptOutsWrite = 'opt-outs:write',
  SubscribersRead = 'subscribers:read',
  SubscribersWrite = 'subscribers:write',
  DeadLettersAdmin = 'dead-letters:admin',
  ApiKeysRead = 'api-keys:read',
  ApiKeysWrite = 'api-keys:write',
  AuditRead = 'audit:read',
}

/** Every scope, in a stable order (the operator's set, and the default of a new tenant key). */
export const ALL_SCOPES: readonly Scope[] = Object.values(Scope);

const SCOPE_VALUES = new Set<string>(ALL_SCOPES);

export function isScope(value: string): value is Scope {
  return SCOPE_VALUES.has(value);
}

/** The header an operator names the tenant it acts for with. */
export const TENANT_HEADER = 'x-ums-tenant';
