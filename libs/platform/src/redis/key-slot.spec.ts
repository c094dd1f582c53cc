import { groupByHashSlot, hashSlot, hashTag } from './key-slot';

describe('hashSlot', () => {
  it("matches Redis Cluster's CLUSTER KEYSLOT", () => {
    // Values of the Redis Cluster specification and of CLUSTER KEYSLOT on redis-server 7.
    expect(hashSlot('123456789')).toBe(12739);
    expect(hashSlot('foo')).toBe(12182);
    expect(hashSlot('bar')).toBe(5061);
  });

  it('hashes only the tag when a key has a non-empty one', () => {
    expect(hashSlot('ums:{tenant-1}:c:a')).toBe(hashSlot('tenant-1'));
    expect(hashSlot('x{tenant-1}y')).toBe(hashSlot('other{tenant-1}'));
    // An empty tag `{}` does not count: the whole key is hashed.
    expect(hashSlot('a{}b')).not.toBe(hashSlot('c{}d'));
    expect(hashSlot('a{}b')).toBe(hashSlot('a{}b'));
  });

  it('keeps a value with a brace inside one tag', () => {
    expect(hashTag('t}1')).toBe('{t_1}');
    expect(hashSlot(`p:${hashTag('t}1')}:c`)).toBe(hashSlot('t_1'));
  });
});

describe('groupByHashSlot', () => {
  it('keeps every key in one group on a single server, and splits by slot on a cluster', () => {
    const keys = ['foo', 'bar', '{foo}:x'];
    expect(groupByHashSlot(keys, false)).toEqual([keys]);
    expect(groupByHashSlot(keys, true)).toEqual([['foo', '{foo}:x'], ['bar']]);
    expect(groupByHashSlot([], false)).toEqual([]);
  });
});
