import { ConnectionLimits, type ConnectionLease, type LeaseAnswer } from './connection-limits';

function leaseOf(answer: LeaseAnswer): ConnectionLease {
  if (!answer.ok) throw new Error(`refused: ${answer.refusal}`);
  return answer.lease;
}

describe('ConnectionLimits', () => {
  it('refuses a principal past its own limit, and others still get theirs', () => {
    const limits = new ConnectionLimits(10, 2);
    leaseOf(limits.acquire('key:a'));
    leaseOf(limits.acquire('key:a'));
    expect(limits.acquire('key:a')).toEqual({ ok: false, refusal: 'principal' });
    leaseOf(limits.acquire('key:b'));
    expect(limits.open).toBe(3);
  });

  it('refuses everyone once the process serves its most', () => {
    const limits = new ConnectionLimits(2, 2);
    leaseOf(limits.acquire('key:a'));
    leaseOf(limits.acquire('key:b'));
    expect(limits.acquire('key:c')).toEqual({ ok: false, refusal: 'process' });
  });

  it('counts a released lease once, however often it is released', () => {
    const limits = new ConnectionLimits(10, 1);
    const lease = leaseOf(limits.acquire('key:a'));
    lease.release();
    lease.release();
    expect(limits.open).toBe(0);
    expect(limits.openFor('key:a')).toBe(0);
    leaseOf(limits.acquire('key:a'));
    expect(limits.acquire('key:a')).toEqual({ ok: false, refusal: 'principal' });
  });
});
