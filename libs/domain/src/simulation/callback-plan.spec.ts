import { type CallbackRates, planCallbacks, type SimulatedStatus } from './callback-plan';

const rates = (overrides: Partial<CallbackRates> = {}): CallbackRates => ({
  failedRate: 0,
  deliveredRate: 1,
  readRate: 1,
  duplicateRate: 0,
  outOfOrderRate: 0,
  ...overrides,
});
const whatsapp = { sent: true, read: true };
const sms = { sent: true, read: false };
const statuses = (plan: readonly { status: SimulatedStatus }[]): SimulatedStatus[] =>
  plan.map((p) => p.status);

describe('planCallbacks', () => {
  it('reports sent, delivered and read in order on a chat channel', () => {
    const plan = planCallbacks(rates(), whatsapp, () => 0.5);
    expect(plan).toEqual([
      { status: 'sent', step: 1 },
      { status: 'delivered', step: 2 },
      { status: 'read', step: 3 },
    ]);
  });

  it('reports no read on a channel without read receipts, and no sent where the provider has none', () => {
    expect(statuses(planCallbacks(rates(), sms, () => 0.5))).toEqual(['sent', 'delivered']);
    expect(statuses(planCallbacks(rates(), { sent: false, read: false }, () => 0.5))).toEqual(['delivered']);
  });

  it('fails instead of delivering at the failed rate', () => {
    expect(statuses(planCallbacks(rates({ failedRate: 1 }), whatsapp, () => 0.5))).toEqual([
      'sent',
      'failed',
    ]);
  });

  it('stops at sent when not delivered, and at delivered when not read', () => {
    expect(statuses(planCallbacks(rates({ deliveredRate: 0 }), whatsapp, () => 0.5))).toEqual(['sent']);
    expect(statuses(planCallbacks(rates({ readRate: 0 }), whatsapp, () => 0.5))).toEqual([
      'sent',
      'delivered',
    ]);
  });

  it('swaps the last two statuses when out of order: read arrives before delivered', () => {
    const plan = planCallbacks(rates({ outOfOrderRate: 1 }), whatsapp, () => 0.5);
    expect(statuses(plan)).toEqual(['sent', 'read', 'delivered']);
    expect(plan.map((p) => p.step)).toEqual([1, 2, 3]);
  });

  it('repeats one status after its original when duplicated', () => {
    const plan = planCallbacks(rates({ duplicateRate: 1 }), whatsapp, () => 0.99);
    expect(statuses(plan)).toEqual(['sent', 'delivered', 'read', 'read']);
    const first = planCallbacks(rates({ duplicateRate: 1 }), sms, () => 0);
    // random() = 0 passes every non-zero rate and picks the first status to repeat.
    expect(statuses(first)).toEqual(['sent', 'delivered', 'sent']);
  });

  it('hits each rate in proportion over many sends', () => {
    // mulberry32, seeded: the same draws on every run.
    let a = 99;
    const random = (): number => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const counts: Record<string, number> = {};
    let swapped = 0;
    let duplicated = 0;
    const r = rates({
      failedRate: 0.1,
      deliveredRate: 0.9,
      readRate: 0.5,
      duplicateRate: 0.2,
      outOfOrderRate: 0.3,
    });
    const n = 100_000;
    for (let i = 0; i < n; i++) {
      const plan = statuses(planCallbacks(r, whatsapp, random));
      for (const s of new Set(plan)) counts[s] = (counts[s] ?? 0) + 1;
      if (plan.length !== new Set(plan).size) duplicated++;
      const d = plan.indexOf('delivered');
      const rd = plan.indexOf('read');
      if (d >= 0 && rd >= 0 && rd < d) swapped++;
    }
    const near = (value: number | undefined, expected: number): void => {
      expect(Math.abs((value ?? 0) / n - expected)).toBeLessThan(0.01);
    };
    near(counts['sent'], 1);
    near(counts['failed'], 0.1);
    near(counts['delivered'], 0.9 * 0.9);
    near(counts['read'], 0.9 * 0.9 * 0.5);
    near(duplicated, 0.2);
    near(swapped, 0.9 * 0.9 * 0.5 * 0.3);
  });
});
