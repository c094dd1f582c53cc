import { randomBytes } from 'node:crypto';
import { type PartitionMetadata, Partitioners } from 'kafkajs';
import { murmur2, murmur2OfKey, Murmur2Partitioner } from './murmur2-partitioner';

/** Partition metadata of n partitions, leaders as given (-1: none). */
function partitions(n: number, leaderOf: (id: number) => number = () => 1): PartitionMetadata[] {
  return Array.from({ length: n }, (_, partitionId) => ({
    partitionErrorCode: 0,
    partitionId,
    leader: leaderOf(partitionId),
    replicas: [1],
    isr: [1],
  }));
}

/**
 * 2^31 - 1 partitions, as far as a keyed pick looks (its length): `(hash & 0x7fffffff) % length`
 * then shows all 31 bits of the hash. Both partitioners read only `length` and `filter` of it.
 */
const huge = { length: 0x7fffffff, filter: () => [] } as unknown as PartitionMetadata[];

function randomKey(): string {
  const length = Math.floor(Math.random() * 80);
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789-:~é漢😀';
  let key = '';
  for (let i = 0; i < length; i++) key += alphabet[Math.floor(Math.random() * alphabet.length)];
  return key;
}

describe('murmur2', () => {
  it("gives the Java client's values (Kafka's UtilsTest vectors)", () => {
    const cases: [string, number][] = [
      ['21', -973932308],
      ['foobar', -790332482],
      ['a-little-bit-long-string', -985981536],
      ['a-little-bit-longer-string', -1486304829],
      ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
      ['abc', 479470107],
    ];
    for (const [key, hash] of cases) {
      expect(murmur2(Buffer.from(key))).toBe(hash);
      expect(murmur2OfKey(key)).toBe(hash);
    }
  });

  it('hashes a string key as its UTF-8 bytes, past the scratch buffer too', () => {
    for (const key of [
      '',
      'é',
      '漢字',
      '😀x',
      'k'.repeat(255),
      'k'.repeat(256),
      'é'.repeat(200),
      'x'.repeat(1000),
    ]) {
      expect(murmur2OfKey(key)).toBe(murmur2(Buffer.from(key, 'utf8')));
    }
  });
});

describe('Murmur2Partitioner', () => {
  const reference = Partitioners.DefaultPartitioner();
  const fast = Murmur2Partitioner();

  it("places every key where kafkajs's DefaultPartitioner does (all 31 bits compared)", () => {
    for (let i = 0; i < 5000; i++) {
      const key = i % 5 === 0 ? randomBytes(i % 40) : randomKey();
      for (const partitionMetadata of [huge, partitions(1), partitions(3), partitions(12), partitions(64)]) {
        const args = { topic: 't', partitionMetadata, message: { key, value: 'v' } };
        expect(fast(args)).toBe(reference(args));
      }
    }
  });

  it('keeps an explicit partition', () => {
    expect(
      fast({
        topic: 't',
        partitionMetadata: partitions(12),
        message: { key: 'k', value: 'v', partition: 7 },
      }),
    ).toBe(7);
  });

  it('spreads keyless records round-robin over partitions that have a leader', () => {
    const metadata = partitions(6, (id) => (id % 2 === 0 ? 1 : -1));
    const picked = Array.from({ length: 30 }, () =>
      fast({ topic: 'rr', partitionMetadata: metadata, message: { value: 'v' } }),
    );
    expect(new Set(picked)).toEqual(new Set([0, 2, 4]));
    const counts = [0, 2, 4].map((p) => picked.filter((x) => x === p).length);
    expect(counts).toEqual([10, 10, 10]);
    // No partition has a leader: one is picked anyway (the send then fails and is retried).
    const none = fast({ topic: 'rr2', partitionMetadata: partitions(3, () => -1), message: { value: 'v' } });
    expect([0, 1, 2]).toContain(none);
  });
});
