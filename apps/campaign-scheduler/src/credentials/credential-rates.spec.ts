import { rateProblems } from './credential-rates';

describe('rateProblems', () => {
  it('accepts a floor up to the ceiling', () => {
    expect(rateProblems({ rateCeilingPerSec: 100, rateFloorPerSec: 1 })).toEqual([]);
    expect(rateProblems({ rateCeilingPerSec: 100, rateFloorPerSec: 100 })).toEqual([]);
  });

  it('refuses a floor above the ceiling, naming the floor', () => {
    expect(rateProblems({ rateCeilingPerSec: 10, rateFloorPerSec: 11 })).toEqual([
      { field: 'rateFloorPerSec', reason: 'rateFloorPerSec (11) must not exceed rateCeilingPerSec (10)' },
    ]);
  });
});
