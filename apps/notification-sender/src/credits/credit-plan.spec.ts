import { Channel, RunPauseReason } from '@ums/contracts';
import { accountKey, type AccountState, type CreditCandidate, planReservation, unitsOf } from './credit-plan';

const row = (id: string, over: Partial<CreditCandidate> = {}): CreditCandidate => ({
  id,
  tenantId: 't',
  channel: 'sms',
  runId: 'r1',
  units: 1,
  charge: 0,
  ...over,
});

const accounts = (entries: [string, string, AccountState][]): Map<string, AccountState> =>
  new Map(entries.map(([tenant, channel, state]) => [accountKey(tenant, channel), state]));

describe('unitsOf', () => {
  it('counts SMS segments and their encoding, one unit for other channels', () => {
    expect(unitsOf(Channel.Sms, { text: 'a'.repeat(161) })).toEqual({
      segments: 2,
      encoding: 'gsm7',
      units: 2,
    });
    expect(unitsOf(Channel.Sms, { text: 'ж' })).toEqual({ segments: 1, encoding: 'ucs2', units: 1 });
    expect(unitsOf(Channel.Sms, {})).toEqual({ segments: 1, encoding: 'gsm7', units: 1 });
    expect(unitsOf(Channel.Email, { text: 'x'.repeat(1000), subject: 's' })).toEqual({
      segments: 1,
      encoding: '',
      units: 1,
    });
  });
});

describe('planReservation', () => {
  it('takes rows in id order while the balance covers price * units, and holds the rest', () => {
    const plan = planReservation(
      [row('10', { units: 2 }), row('9', { units: 1 }), row('11', { units: 1 }), row('12', { units: 1 })],
      accounts([['t', 'sms', { balance: 10, price: 3 }]]),
      new Map(),
    );
    // 9 (3) + 10 (6) = 9 of 10; 11 would need 3 more; 12 is held too (a prefix is taken).
    expect([...plan.charges]).toEqual([
      ['9', 3],
      ['10', 6],
    ]);
    expect([...plan.held]).toEqual([
      ['11', RunPauseReason.CreditsExhausted],
      ['12', RunPauseReason.CreditsExhausted],
    ]);
    expect(plan.accounts).toEqual([
      { tenantId: 't', channel: 'sms', amount: 9, balanceAfter: 1, messages: 2, units: 3, runId: 'r1' },
    ]);
    expect([...plan.chargedPerRun]).toEqual([['r1', 9]]);
  });

  it('takes an exact fit', () => {
    const plan = planReservation(
      [row('1'), row('2')],
      accounts([['t', 'sms', { balance: 4, price: 2 }]]),
      new Map(),
    );
    expect(plan.held.size).toBe(0);
    expect(plan.accounts[0]).toMatchObject({ amount: 4, balanceAfter: 0 });
  });

  it('never charges a row that still holds a charge, nor counts it against the balance or quota', () => {
    const plan = planReservation(
      [row('1', { charge: 5 }), row('2')],
      accounts([['t', 'sms', { balance: 2, price: 2 }]]),
      new Map([['t', { day: 1, month: 1 }]]),
    );
    expect([...plan.charges]).toEqual([['2', 2]]);
    expect(plan.held.size).toBe(0);
    expect([...plan.quotaUsed]).toEqual([['t', 1]]);
  });

  it('stops at the quota room of the day or the month, shared by the tenant channels', () => {
    const plan = planReservation(
      [row('1'), row('2', { channel: 'whatsapp' }), row('3'), row('4', { channel: 'whatsapp' })],
      accounts([
        ['t', 'sms', { balance: 100, price: 1 }],
        ['t', 'whatsapp', { balance: 100, price: 1 }],
      ]),
      new Map([['t', { day: 5, month: 3 }]]),
    );
    // Accounts in key order (sms before whatsapp), each in id order.
    expect([...plan.charges.keys()]).toEqual(['1', '3', '2']);
    expect([...plan.held]).toEqual([['4', RunPauseReason.QuotaExhausted]]);
    expect(plan.accounts.map((a) => [a.channel, a.messages])).toEqual([
      ['sms', 2],
      ['whatsapp', 1],
    ]);
  });

  it('takes rows of unpriced or unknown accounts uncharged, and names no run when several are charged', () => {
    const plan = planReservation(
      [
        row('1', { tenantId: 'free' }),
        row('2', { tenantId: 'gone' }),
        row('3', { runId: 'a' }),
        row('4', { runId: null }),
      ],
      accounts([
        ['free', 'sms', { balance: 0, price: null }],
        ['t', 'sms', { balance: 100, price: 1 }],
      ]),
      new Map(),
    );
    expect([...plan.charges.keys()]).toEqual(['3', '4']);
    expect(plan.held.size).toBe(0);
    expect(plan.accounts).toEqual([
      { tenantId: 't', channel: 'sms', amount: 2, balanceAfter: 98, messages: 2, units: 2, runId: 'a' },
    ]);
    const twoRuns = planReservation(
      [row('1', { runId: 'a' }), row('2', { runId: 'b' })],
      accounts([['t', 'sms', { balance: 100, price: 1 }]]),
      new Map(),
    );
    expect(twoRuns.accounts[0]?.runId).toBeNull();
  });

  it('orders ids numerically, not as text', () => {
    const plan = planReservation(
      [row('100'), row('99')],
      accounts([['t', 'sms', { balance: 1, price: 1 }]]),
      new Map(),
    );
    expect([...plan.charges.keys()]).toEqual(['99']);
  });
});
