import type { Whoami } from '../api/api.types';

/** The part of the Web Storage API the session uses (sessionStorage in the browser). */
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

const KEY = 'ums.console.key';
const WHOAMI = 'ums.console.whoami';
const ACT_FOR = 'ums.console.act-for';

const KINDS: ReadonlySet<string> = new Set(['api-key', 'operator', 'jwt']);

/** The whoami answer if `value` is one (the stored copy is checked, never trusted as is). */
export function asWhoami(value: unknown): Whoami | null {
  if (typeof value !== 'object' || value === null) return null;
  const record = value as Record<string, unknown>;
  const { kind, id, tenantId, scopes } = record;
  if (typeof kind !== 'string' || !KINDS.has(kind) || typeof id !== 'string') return null;
  if (tenantId !== null && typeof tenantId !== 'string') return null;
  if (!Array.isArray(scopes) || !scopes.every((s): s is string => typeof s === 'string')) return null;
  return { kind: kind as Whoami['kind'], id, tenantId, scopes };
}

/**
 * The signed-in caller: the API key and its whoami, kept in sessionStorage only (gone with the tab), and
 * the tenant an operator acts for. Listeners hear every change (sign-in, sign-out, tenant picked).
 */
export class SessionStore {
  private readonly listeners = new Set<() => void>();

  constructor(private readonly storage: KeyValueStorage) {}

  get key(): string | null {
    return this.storage.getItem(KEY);
  }

  get whoami(): Whoami | null {
    const stored = this.storage.getItem(WHOAMI);
    if (stored === null) return null;
    try {
      return asWhoami(JSON.parse(stored));
    } catch {
      return null;
    }
  }

  get signedIn(): boolean {
    return this.key !== null && this.whoami !== null;
  }

  /** Whether the caller is the operator acting across tenants. */
  get isOperator(): boolean {
    return this.whoami?.tenantId === null;
  }

  /** The tenant an operator picked to act for (sent as X-Ums-Tenant), or null. */
  get actingTenant(): string | null {
    if (!this.isOperator) return null;
    const tenant = this.storage.getItem(ACT_FOR);
    return tenant === null || tenant.trim() === '' ? null : tenant.trim();
  }

  signIn(key: string, whoami: Whoami): void {
    this.storage.setItem(KEY, key);
    this.storage.setItem(WHOAMI, JSON.stringify(whoami));
    this.storage.removeItem(ACT_FOR);
    this.notify();
  }

  setActingTenant(tenant: string): void {
    if (tenant.trim() === '') this.storage.removeItem(ACT_FOR);
    else this.storage.setItem(ACT_FOR, tenant.trim());
    this.notify();
  }

  signOut(): void {
    this.storage.removeItem(KEY);
    this.storage.removeItem(WHOAMI);
    this.storage.removeItem(ACT_FOR);
    this.notify();
  }

  hasScope(scope: string): boolean {
    return this.whoami?.scopes.includes(scope) ?? false;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}
