import { bisectFailures, type TryOutcome } from './chunk-bisection';

/** A handler that fails a whole call whenever it contains a poison item, and records what it handled. */
function poisonHandler(poison: ReadonlySet<number>) {
  const handled: number[] = [];
  const calls: number[][] = [];
  const tryItems = async (items: readonly number[]): Promise<TryOutcome<string>> => {
    calls.push([...items]);
    const bad = items.filter((i) => poison.has(i));
    if (bad.length > 0) return { kind: 'failed', failure: `poison ${bad.join(',')}` };
    handled.push(...items);
    return { kind: 'ok' };
  };
  return { tryItems, handled, calls };
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('bisectFailures', () => {
  it('reports nothing and tries once when the whole chunk succeeds', async () => {
    const h = poisonHandler(new Set());
    expect(await bisectFailures(range(50), h.tryItems)).toEqual([]);
    expect(h.calls).toHaveLength(1);
  });

  it('isolates one poison item of 50 and handles the 49 others once, in order', async () => {
    const h = poisonHandler(new Set([17]));
    const failures = await bisectFailures(range(50), h.tryItems);
    expect(failures).toEqual([{ item: 17, failure: 'poison 17' }]);
    expect(h.handled).toEqual(range(50).filter((i) => i !== 17));
    // log2(50) levels, two tries per level at most.
    expect(h.calls.length).toBeLessThanOrEqual(1 + 2 * Math.ceil(Math.log2(50)));
  });

  it('isolates several poison items, including the first and the last', async () => {
    const h = poisonHandler(new Set([0, 9, 10, 99]));
    const failures = await bisectFailures(range(100), h.tryItems);
    expect(failures === 'stop' ? failures : failures.map((f) => f.item)).toEqual([0, 9, 10, 99]);
    expect(h.handled.sort((a, b) => a - b)).toEqual(range(100).filter((i) => ![0, 9, 10, 99].includes(i)));
  });

  it('reports a single failing item with its failure', async () => {
    const h = poisonHandler(new Set([0]));
    expect(await bisectFailures([0], h.tryItems)).toEqual([{ item: 0, failure: 'poison 0' }]);
  });

  it('stops at once when a try says stop, leaving the rest untried', async () => {
    const calls: number[][] = [];
    const outcome = await bisectFailures(range(8), async (items) => {
      calls.push([...items]);
      if (items.length === 8) return { kind: 'failed', failure: 'x' } as const;
      return { kind: 'stop' } as const;
    });
    expect(outcome).toBe('stop');
    expect(calls).toEqual([range(8), range(4)]);
  });

  it('does nothing for no items', async () => {
    const h = poisonHandler(new Set());
    expect(await bisectFailures([], h.tryItems)).toEqual([]);
    expect(h.calls).toEqual([]);
  });
});
