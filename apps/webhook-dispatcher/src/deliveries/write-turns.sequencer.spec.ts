import { WriteTurns } from './write-turns.sequencer';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('WriteTurns', () => {
  it('lets turns of one key go in the order they were taken, whatever order they become ready to write', async () => {
    const turns = new WriteTurns();
    const order: string[] = [];
    const first = turns.take('p0');
    const second = turns.take('p0');
    const third = turns.take('p0');
    const write = async (name: string, turn: typeof first): Promise<void> => {
      await turn.ready;
      order.push(name);
      turn.release();
    };
    const done = [write('third', third), write('second', second)];
    await tick();
    expect(order).toEqual([]);
    await write('first', first);
    await Promise.all(done);
    expect(order).toEqual(['first', 'second', 'third']);
  });

  it('keeps keys independent', async () => {
    const turns = new WriteTurns();
    const held = turns.take('p0');
    const other = turns.take('p1');
    let otherWrote = false;
    void other.ready.then(() => {
      otherWrote = true;
    });
    await tick();
    expect(otherWrote).toBe(true);
    held.release();
  });

  it('a turn released before it was ready (a failed chunk) still waits for earlier turns, and frees the key', async () => {
    const turns = new WriteTurns();
    const first = turns.take('p0');
    const failed = turns.take('p0');
    const third = turns.take('p0');
    failed.release();
    failed.release();
    let thirdReady = false;
    void third.ready.then(() => {
      thirdReady = true;
    });
    await tick();
    expect(thirdReady).toBe(false);
    first.release();
    await third.ready;
    third.release();
    await tick();
    expect(turns.size).toBe(0);
  });
});
