import { asWhoami, type KeyValueStorage, SessionStore } from './session.store';

function memoryStorage(): KeyValueStorage & { readonly items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

const operator = { kind: 'operator', id: 'operator', tenantId: null, scopes: ['campaigns:read'] } as const;
const tenantKey = { kind: 'api-key', id: 'k1', tenantId: 'acme', scopes: ['campaigns:read'] } as const;

describe('SessionStore', () => {
  it('keeps the key and whoami until sign-out, and tells its listeners', () => {
    const storage = memoryStorage();
    const session = new SessionStore(storage);
    let changes = 0;
    session.subscribe(() => changes++);
    expect(session.signedIn).toBe(false);
    session.signIn('ums_secret', tenantKey);
    expect(session.key).toBe('ums_secret');
    expect(session.whoami).toEqual(tenantKey);
    expect(session.hasScope('campaigns:read')).toBe(true);
    expect(session.hasScope('audit:read')).toBe(false);
    session.signOut();
    expect(session.signedIn).toBe(false);
    expect(storage.items.size).toBe(0);
    expect(changes).toBe(2);
  });

  it('lets only the operator act for a tenant', () => {
    const session = new SessionStore(memoryStorage());
    session.signIn('op', operator);
    expect(session.isOperator).toBe(true);
    session.setActingTenant('  acme ');
    expect(session.actingTenant).toBe('acme');
    session.setActingTenant('');
    expect(session.actingTenant).toBeNull();
    session.signIn('key', tenantKey);
    session.setActingTenant('other');
    expect(session.actingTenant).toBeNull();
  });

  it('drops a stored whoami that is not one', () => {
    const storage = memoryStorage();
    storage.setItem('ums.console.key', 'k');
    storage.setItem('ums.console.whoami', '{not json');
    expect(new SessionStore(storage).signedIn).toBe(false);
    expect(asWhoami({ kind: 'root', id: 'x', tenantId: null, scopes: [] })).toBeNull();
    expect(asWhoami({ kind: 'jwt', id: 'x', tenantId: 5, scopes: [] })).toBeNull();
    expect(asWhoami({ kind: 'jwt', id: 'x', tenantId: 't', scopes: [1] })).toBeNull();
  });
});
