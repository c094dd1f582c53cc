import { ClaimBudget } from './claim-budget';

describe('ClaimBudget', () => {
  it('hands out permits up to its capacity and queues the rest in arrival order', async () => {
    const budget = new ClaimBudget(100);
    const releaseA = await budget.acquire(60);
    const order: string[] = [];
    const b = budget.acquire(50).then((release) => {
      order.push('b');
      return release;
    });
    const c = budget.acquire(10).then((release) => {
      order.push('c');
      return release;
    });
    await Promise.resolve();
    // c would fit, but b came first: no overtaking, so a large claim is never starved.
    expect(order).toEqual([]);
    releaseA();
    const [releaseB, releaseC] = await Promise.all([b, c]);
    expect(order).toEqual(['b', 'c']);
    releaseB();
    releaseC();
    releaseC(); // a second release gives nothing back twice
    const all = await budget.acquire(100);
    all();
  });

  it('caps a request larger than the capacity at the capacity', async () => {
    const budget = new ClaimBudget(10);
    const release = await budget.acquire(25);
    let second = false;
    const next = budget.acquire(1).then(() => (second = true));
    await Promise.resolve();
    expect(second).toBe(false);
    release();
    await next;
    expect(second).toBe(true);
  });
});
