import { pruneInWindows } from './windowed-prune';

describe('pruneInWindows', () => {
  it('deletes window after window until one comes back short, reporting each as it returns', async () => {
    const answers = [10, 10, 3, 10];
    const seen: number[] = [];
    const deleted = await pruneInWindows(async (window) => Math.min(window, answers.shift() ?? 0), {
      window: 10,
      maxWindows: 50,
      onDeleted: (rows) => seen.push(rows),
    });
    expect(deleted).toBe(23);
    expect(seen).toEqual([10, 10, 3]);
    expect(answers).toEqual([10]);
  });

  it('stops after maxWindows full windows, leaving the rest to the next tick', async () => {
    let calls = 0;
    const deleted = await pruneInWindows(async (window) => (calls++, window), {
      window: 5,
      maxWindows: 3,
      onDeleted: () => undefined,
    });
    expect([deleted, calls]).toEqual([15, 3]);
  });

  it('reports nothing for an empty window, and the windows before a failing one', async () => {
    const seen: number[] = [];
    const answers: (number | Error)[] = [4, new Error('database away')];
    await expect(
      pruneInWindows(
        async () => {
          const next = answers.shift();
          if (next instanceof Error) throw next;
          return next ?? 0;
        },
        { window: 4, maxWindows: 10, onDeleted: (rows) => seen.push(rows) },
      ),
    ).rejects.toThrow('database away');
    expect(seen).toEqual([4]);
    seen.length = 0;
    expect(
      await pruneInWindows(async () => 0, { window: 4, maxWindows: 10, onDeleted: (r) => seen.push(r) }),
    ).toBe(0);
    expect(seen).toEqual([]);
  });
});
