import { SerialQueue } from './serial-queue';

/** A task that runs until its test settles it, and records when it started. */
function gate(log: string[], name: string) {
  let settle: { resolve: (value: string) => void; reject: (error: Error) => void } | undefined;
  const task = (): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      log.push(`start ${name}`);
      settle = { resolve, reject };
    });
  return {
    task,
    finish: () => settle?.resolve(name),
    fail: () => settle?.reject(new Error(`${name} failed`)),
  };
}

/** Lets every settled promise's callbacks run. */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('SerialQueue', () => {
  it('runs one task at a time, the waiting ones in the order they were offered', async () => {
    const log: string[] = [];
    const queue = new SerialQueue(5);
    const [a, b, c] = [gate(log, 'a'), gate(log, 'b'), gate(log, 'c')];
    const answers = [a, b, c].map((g) => queue.offer(g.task));
    await flush();
    expect(log).toEqual(['start a']);
    expect(queue.size).toBe(3);
    a.finish();
    await flush();
    expect(log).toEqual(['start a', 'start b']);
    b.finish();
    await flush();
    c.finish();
    const results = await Promise.all(
      answers.map((answer) => (answer.taken ? answer.result : Promise.reject(new Error('refused')))),
    );
    expect(results).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['start a', 'start b', 'start c']);
    expect(queue.size).toBe(0);
  });

  it('refuses a task beyond the running one and maxWaiting waiting ones, and takes tasks again once room is made', async () => {
    const log: string[] = [];
    const queue = new SerialQueue(2);
    const a = gate(log, 'a');
    const taken = [a, gate(log, 'b'), gate(log, 'c')].map((g) => queue.offer(g.task));
    expect(taken.map((answer) => answer.taken)).toEqual([true, true, true]);
    expect(queue.offer(gate(log, 'd').task)).toEqual({ taken: false });
    a.finish();
    await flush();
    expect(queue.offer(gate(log, 'e').task).taken).toBe(true);
    expect(queue.offer(gate(log, 'f').task).taken).toBe(false);
  });

  it('hands over to the next task when one fails, and answers the failure to its caller only', async () => {
    const log: string[] = [];
    const queue = new SerialQueue(1);
    const [a, b] = [gate(log, 'a'), gate(log, 'b')];
    const first = queue.offer(a.task);
    const second = queue.offer(b.task);
    await flush();
    a.fail();
    if (!first.taken || !second.taken) throw new Error('both were taken');
    await expect(first.result).rejects.toThrow('a failed');
    await flush();
    expect(log).toEqual(['start a', 'start b']);
    b.finish();
    await expect(second.result).resolves.toBe('b');
    expect(queue.size).toBe(0);
  });

  it('with no room to wait, takes a task only while none runs', async () => {
    const log: string[] = [];
    const queue = new SerialQueue(0);
    const a = gate(log, 'a');
    expect(queue.offer(a.task).taken).toBe(true);
    expect(queue.offer(gate(log, 'b').task).taken).toBe(false);
    await flush();
    a.finish();
    await flush();
    expect(queue.offer(gate(log, 'c').task).taken).toBe(true);
  });
});
