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
  /** Reusable contact lists: read lists, their imports and members. */
  ListsRead = 'lists:read',
  /** Create, import into and delete contact lists. */
  ListsWrite = 'lists:write',
  /** The tenant's credit balances, prices, quotas and ledger (read only). */
  CreditsRead = 'credits:read',
  /** Top-ups, prices and quotas of any tenant: operator-only (OPERATOR_ONLY_SCOPES), never a tenant key's. */
  CreditsAdmin = 'credits:admin',
}

/** Scopes only the operator key holds: a tenant's key or JWT never carries one (isScope refuses them). */
export const OPERATOR_ONLY_SCOPES = [Scope.CreditsAdmin] as const satisfies readonly Scope[];

/** A scope a tenant's key or JWT may hold: any but OPERATOR_ONLY_SCOPES. */
export type TenantScope = Exclude<Scope, (typeof OPERATOR_ONLY_SCOPES)[number]>;

/**
 * Every scope a tenant's key or JWT may hold, in a stable order (the default of a new tenant key): all
 * but OPERATOR_ONLY_SCOPES.
 */
export const ALL_SCOPES: readonly TenantScope[] = Object.values(Scope).filter(
  (scope): scope is TenantScope => !(OPERATOR_ONLY_SCOPES as readonly Scope[]).includes(scope),
);

/** The operator key's scopes: every scope, those only it may hold included. */
export const OPERATOR_SCOPES: readonly Scope[] = Object.values(Scope);

const SCOPE_VALUES = new Set<string>(ALL_SCOPES);

/** Whether a value read from a key's row or a JWT is a scope a tenant may hold (never an operator-only one). */
export function isScope(value: string): value is TenantScope {
  return SCOPE_VALUES.has(value);
}

/** The header an operator names the tenant it acts for with. */
export const TENANT_HEADER = 'x-ums-tenant';
