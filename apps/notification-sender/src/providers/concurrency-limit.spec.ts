import { ConcurrencyLimit } from './concurrency-limit';

/** A promise with its resolve exposed. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('ConcurrencyLimit', () => {
  it('runs at most max tasks at once and starts the others in arrival order', async () => {
    const limit = new ConcurrencyLimit(2);
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((gate, i) =>
      limit.run(async () => {
        started.push(i);
        await gate.promise;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect([limit.running, limit.queued]).toEqual([2, 2]);
    gates[1]?.resolve();
    await runs[1];
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);
    gates[0]?.resolve();
    gates[2]?.resolve();
    gates[3]?.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect([limit.running, limit.queued]).toEqual([0, 0]);
  });

  it('frees the slot of a task that throws', async () => {
    const limit = new ConcurrencyLimit(1);
    await expect(limit.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limit.run(() => Promise.resolve('next'))).toBe('next');
    expect(limit.running).toBe(0);
  });

  it('refuses a limit below one', () => {
    expect(() => new ConcurrencyLimit(0)).toThrow('max >= 1');
  });
});
