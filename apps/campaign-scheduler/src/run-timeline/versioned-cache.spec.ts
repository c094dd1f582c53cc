import { VersionedCache } from './versioned-cache';

describe('VersionedCache', () => {
  it('answers a value for its key and version only', () => {
    const cache = new VersionedCache<string>(4);
    cache.set('81', 'v1', 'timeline of v1');
    expect(cache.get('81', 'v1')).toBe('timeline of v1');
    expect(cache.get('81', 'v2')).toBeUndefined();
    expect(cache.get('82', 'v1')).toBeUndefined();
  });

  it("replaces a key's entry when written with another version", () => {
    const cache = new VersionedCache<string>(4);
    cache.set('81', 'v1', 'old');
    cache.set('81', 'v2', 'new');
    expect(cache.size).toBe(1);
    expect(cache.get('81', 'v1')).toBeUndefined();
    expect(cache.get('81', 'v2')).toBe('new');
  });

  it('keeps at most its capacity, dropping the least recently used first', () => {
    const cache = new VersionedCache<number>(2);
    cache.set('a', 'v', 1);
    cache.set('b', 'v', 2);
    expect(cache.get('a', 'v')).toBe(1);
    cache.set('c', 'v', 3);
    expect(cache.size).toBe(2);
    expect(cache.get('b', 'v')).toBeUndefined();
    expect([cache.get('a', 'v'), cache.get('c', 'v')]).toEqual([1, 3]);
  });
});
