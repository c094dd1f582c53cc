import { newApiKeyToken, newOperatorKey, parseBearerToken, sameDigest, sha256Hex } from './api-key-token';
import { PrincipalCache } from './principal-cache';

describe('API key tokens', () => {
  it('makes prefixed keys of 32 random bytes whose id is found again from the token', () => {
    const a = newApiKeyToken();
    const b = newApiKeyToken();
    expect(a.token).toMatch(/^umsk_[0-9A-HJKMNP-TV-Z]{26}_[A-Za-z0-9_-]{43}$/);
    expect(a.token).not.toBe(b.token);
    expect(parseBearerToken(a.token)).toEqual({ kind: 'api-key', keyId: a.id });
    expect(sameDigest(sha256Hex(a.token), a.secretHash)).toBe(true);
    expect(sameDigest(sha256Hex(b.token), a.secretHash)).toBe(false);
  });

  it('tells operator keys, JWTs and malformed tokens apart by their form', () => {
    expect(parseBearerToken(newOperatorKey())).toEqual({ kind: 'operator' });
    expect(parseBearerToken('eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln')).toEqual({ kind: 'jwt' });
    expect(parseBearerToken('umsk_short')).toEqual({ kind: 'malformed' });
    expect(parseBearerToken('umso_tooshort')).toEqual({ kind: 'malformed' });
    expect(parseBearerToken('a.b')).toEqual({ kind: 'malformed' });
  });
});

describe('PrincipalCache', () => {
  it('forgets entries when their time is up and the oldest when full', () => {
    const cache = new PrincipalCache<string>(2);
    cache.set('a', 'A', 100);
    cache.set('b', 'B', 200);
    expect(cache.get('a', 99)).toBe('A');
    expect(cache.get('a', 100)).toBeUndefined();
    cache.set('c', 'C', 300);
    cache.set('d', 'D', 300);
    expect(cache.get('b', 0)).toBeUndefined();
    expect(cache.get('c', 0)).toBe('C');
    expect(cache.get('d', 0)).toBe('D');
  });
});
