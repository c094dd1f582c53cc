import { ServerClock } from './server-clock';

describe('ServerClock', () => {
  it('counts from the quickest recent answer, so a late answer does not move the decision later', () => {
    const clock = new ServerClock();
    // Local = server - 1000; answers arrive 2 ms, then 40 ms after the decision.
    expect(clock.toLocal(5_000, 4_002)).toBe(4_002);
    expect(clock.toLocal(6_000, 5_040)).toBe(5_002);
    expect(clock.toLocal(7_000, 6_003)).toBe(6_002);
  });

  it('never places the decision after the answer arrived, even when Redis jumped ahead', () => {
    const clock = new ServerClock();
    clock.toLocal(5_000, 4_010);
    expect(clock.toLocal(6_500, 5_010)).toBe(5_010);
  });

  it('follows a clock that stepped, once the older answers have left the window', () => {
    const clock = new ServerClock();
    clock.toLocal(5_000, 4_000);
    for (let i = 1; i <= 32; i++) clock.toLocal(5_000 + i * 10, 4_000 + i * 10 + 300);
    expect(clock.toLocal(6_000, 5_301)).toBe(5_300);
  });
});
