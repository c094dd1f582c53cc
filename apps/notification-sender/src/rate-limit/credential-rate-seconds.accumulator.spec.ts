import { CredentialRateSecondsAccumulator, secondOf } from './credential-rate-seconds.accumulator';

const A = { credentialId: 'cred-a', tenantId: 't1' };
const B = { credentialId: 'cred-b', tenantId: 't2' };
const T0 = Date.UTC(2026, 10, 24, 10, 0, 0);
const outcome = (accepted: number, congested = 0, errors5xx = 0, timeouts = 0) => ({
  accepted,
  congested,
  errors5xx,
  timeouts,
});

/** An accumulator on a clock the test moves. */
function accumulator(maxSeconds = 10) {
  const clock = { ms: T0 + 100 };
  const dropped: number[] = [];
  const seconds = new CredentialRateSecondsAccumulator({
    maxSeconds,
    onDropped: (rows) => dropped.push(rows),
    now: () => clock.ms,
  });
  return { seconds, clock, dropped };
}

describe('CredentialRateSecondsAccumulator', () => {
  it('adds up grants, outcomes and decreases per credential and UTC second, with the rate the second ended at', () => {
    const { seconds, clock } = accumulator();
    seconds.granted(A, 10, 100);
    seconds.granted(A, 5, 100);
    seconds.reported(A, outcome(12, 3, 1, 2));
    seconds.rate(A, 50, true);
    seconds.granted(B, 0, 20);
    clock.ms = T0 + 999;
    seconds.reported(A, outcome(1));
    clock.ms = T0 + 1_000;
    seconds.granted(A, 7, 50);

    expect(seconds.take()).toEqual([
      {
        ...A,
        secondMs: T0,
        rate: 50,
        granted: 15,
        accepted: 13,
        congested: 3,
        errors5xx: 1,
        timeouts: 2,
        decreases: 1,
      },
      {
        ...B,
        secondMs: T0,
        rate: 20,
        granted: 0,
        accepted: 0,
        congested: 0,
        errors5xx: 0,
        timeouts: 0,
        decreases: 0,
      },
    ]);
    // The second in progress stays until it is over, or until a shutdown takes everything.
    expect(seconds.pendingSeconds).toBe(1);
    expect(seconds.take()).toEqual([]);
    expect(seconds.take(true)).toEqual([expect.objectContaining({ ...A, secondMs: T0 + 1_000, granted: 7 })]);
    expect(seconds.pendingSeconds).toBe(0);
  });

  it('starts a second at the rate the credential last had, and at 0 for a rate never seen', () => {
    const { seconds, clock } = accumulator();
    seconds.granted(A, 1, 80);
    seconds.rate(A, 40, true);
    clock.ms = T0 + 1_000;
    seconds.reported(A, outcome(1));
    seconds.reported(B, outcome(2));
    clock.ms = T0 + 2_000;
    const rows = seconds.take().filter((row) => row.secondMs === T0 + 1_000);
    expect(rows.map((row) => [row.credentialId, row.rate, row.decreases])).toEqual([
      ['cred-a', 40, 0],
      ['cred-b', 0, 0],
    ]);
  });

  it('orders what it takes by credential, then second', () => {
    const { seconds, clock } = accumulator();
    for (const at of [0, 1_000, 2_000]) {
      clock.ms = T0 + at;
      seconds.granted(B, 1, 10);
      seconds.granted(A, 1, 10);
    }
    clock.ms = T0 + 3_000;
    expect(seconds.take().map((row) => `${row.credentialId}@${row.secondMs - T0}`)).toEqual([
      'cred-a@0',
      'cred-a@1000',
      'cred-a@2000',
      'cred-b@0',
      'cred-b@1000',
      'cred-b@2000',
    ]);
  });

  it('takes back rows a flush could not write, adding them to what came since and keeping the newer rate', () => {
    const { seconds, clock } = accumulator();
    seconds.granted(A, 10, 100);
    seconds.reported(A, outcome(4, 1));
    const failed = seconds.take(true);
    seconds.granted(A, 2, 60);
    seconds.putBack(failed);
    clock.ms = T0 + 1_000;
    expect(seconds.take()).toEqual([
      {
        ...A,
        secondMs: T0,
        rate: 60,
        granted: 12,
        accepted: 4,
        congested: 1,
        errors5xx: 0,
        timeouts: 0,
        decreases: 0,
      },
    ]);
  });

  it('holds at most maxSeconds seconds, dropping the oldest and counting their rows', () => {
    const { seconds, clock, dropped } = accumulator(3);
    for (let i = 0; i < 5; i++) {
      clock.ms = T0 + i * 1_000;
      seconds.granted(A, 1, 10);
      if (i === 0) seconds.granted(B, 1, 10);
    }
    expect(seconds.pendingSeconds).toBe(3);
    expect(dropped).toEqual([2, 1]);
    expect(seconds.take(true).map((row) => row.secondMs - T0)).toEqual([2_000, 3_000, 4_000]);

    // Rows put back after a failed flush count against the bound as well.
    const { seconds: other, clock: otherClock, dropped: otherDropped } = accumulator(2);
    other.granted(A, 1, 10);
    const old = other.take(true);
    for (const at of [1_000, 2_000]) {
      otherClock.ms = T0 + at;
      other.granted(A, 1, 10);
    }
    other.putBack(old);
    expect(otherDropped).toEqual([1]);
    expect(other.take(true).map((row) => row.secondMs - T0)).toEqual([1_000, 2_000]);
  });

  it('ignores a rate that is not a positive number', () => {
    const { seconds } = accumulator();
    seconds.granted(A, 1, 30);
    seconds.rate(A, Number.NaN);
    seconds.rate(A, 0);
    expect(seconds.take(true)[0]?.rate).toBe(30);
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => new CredentialRateSecondsAccumulator({ maxSeconds: 0, onDropped: () => undefined })).toThrow(
      RangeError,
    );
  });

  it('cuts times to the start of their UTC second', () => {
    expect(secondOf(T0 + 999)).toBe(T0);
    expect(secondOf(T0 + 1_000)).toBe(T0 + 1_000);
  });
});
