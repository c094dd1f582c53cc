import { GrantLead } from './grant-lead';

const options = { samples: 10, quantile: 0.9, maxMs: 200, fallPerMs: 0.05 };

describe('GrantLead', () => {
  it('is 0 until a delay was seen', () => {
    expect(new GrantLead(options).leadAt(1_000)).toBe(0);
  });

  it('is the high quantile of the recent delays, and forgets the oldest', () => {
    const lead = new GrantLead(options);
    for (const delay of [5, 10, 15, 20, 25, 30, 35, 40, 45, 120]) lead.observe(delay);
    expect(lead.leadAt(0)).toBe(45);
    // Ten more short delays push the long one out; the lead falls no faster than 0.05 ms per ms.
    for (let i = 0; i < 10; i++) lead.observe(8);
    expect(lead.leadAt(100)).toBe(40);
    expect(lead.leadAt(1_000)).toBe(8);
  });

  it('rises at once and never past its maximum; negative delays count as 0', () => {
    const lead = new GrantLead(options);
    lead.observe(-3);
    expect(lead.leadAt(0)).toBe(0);
    for (let i = 0; i < 10; i++) lead.observe(900);
    expect(lead.leadAt(1)).toBe(200);
  });
});
