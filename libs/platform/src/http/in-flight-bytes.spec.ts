import { InFlightBytes } from './in-flight-bytes';

describe('InFlightBytes', () => {
  it('takes bytes while they fit, counts each refusal, and takes them back', () => {
    let refused = 0;
    const budget = new InFlightBytes({ limitBytes: 100, onRefused: () => (refused += 1) });
    expect(budget.tryTake(60)).toBe(true);
    expect(budget.tryTake(40)).toBe(true);
    expect(budget.tryTake(1)).toBe(false);
    expect([budget.inUse, refused]).toEqual([100, 1]);
    budget.give(60);
    expect(budget.tryTake(50)).toBe(true);
    expect(budget.inUse).toBe(90);
  });

  it('refuses a limit that is not a positive whole number', () => {
    expect(() => new InFlightBytes({ limitBytes: 0 })).toThrow(RangeError);
    expect(() => new InFlightBytes({ limitBytes: 1.5 })).toThrow(RangeError);
  });
});
