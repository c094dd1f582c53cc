import { groupedTokenSlots, tokenSlots } from './token-slots';

describe('tokenSlots', () => {
  it('spaces reserved tokens at the rate, ending at the last slot', () => {
    expect(tokenSlots({ granted: 4, rate: 100, sharedStartInMs: 40, tenantStartInMs: 0 })).toEqual([
      10, 20, 30, 40,
    ]);
  });

  it('gives tokens that were in the bucket the slot of the grant itself', () => {
    // Two tokens were there, the other two are reserved ahead.
    expect(tokenSlots({ granted: 4, rate: 100, sharedStartInMs: 20, tenantStartInMs: 0 })).toEqual([
      0, 0, 10, 20,
    ]);
    expect(tokenSlots({ granted: 3, rate: 100, sharedStartInMs: 0, tenantStartInMs: 0 })).toEqual([0, 0, 0]);
  });

  it("takes the later slot where the tenant's bucket is the slower one", () => {
    const slots = tokenSlots({
      granted: 3,
      rate: 1000,
      sharedStartInMs: 90,
      tenantCapPerSec: 50,
      tenantStartInMs: 100,
    });
    // Tenant: 60, 80, 100; shared: 88, 89, 90.
    expect(slots).toEqual([88, 89, 100]);
  });

  it('ignores a tenant start without a tenant cap, and grants nothing for nothing', () => {
    expect(tokenSlots({ granted: 2, rate: 10, sharedStartInMs: 100, tenantStartInMs: 500 })).toEqual([
      0, 100,
    ]);
    expect(tokenSlots({ granted: 0, rate: 10, sharedStartInMs: 0, tenantStartInMs: 0 })).toEqual([]);
  });

  it('groups tokens whose slots span less than the group time at the last slot of each group', () => {
    const grant = { granted: 6, rate: 200, sharedStartInMs: 25, tenantStartInMs: 0 };
    // Each token's own slot, then groups spanning less than 25 ms (a bucket 5 tokens deep) and 10 ms.
    expect(tokenSlots(grant)).toEqual([0, 5, 10, 15, 20, 25]);
    expect(groupedTokenSlots(grant, 25)).toEqual([0, 25, 25, 25, 25, 25]);
    expect(groupedTokenSlots(grant, 10)).toEqual([5, 5, 15, 15, 25, 25]);
    expect(groupedTokenSlots(grant, 1)).toEqual(tokenSlots(grant));
    expect(groupedTokenSlots({ ...grant, sharedStartInMs: 0 }, 25)).toEqual([0, 0, 0, 0, 0, 0]);
  });
});
