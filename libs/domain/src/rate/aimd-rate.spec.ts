import {
  type AimdParams,
  type AimdStart,
  type AimdState,
  type AimdWindow,
  clampRate,
  decideAimd,
  initialRate,
  seedRate,
  utilization,
} from './aimd-rate';

const params: AimdParams = {
  ceiling: 1000,
  floor: 50,
  increaseFraction: 0.05,
  decreaseFactor: 0.7,
  intervalMs: 1000,
  cooldownMs: 1000,
  minUtilization: 0.8,
  congestion: { congestedMin: 3, congestedRatio: 0.01, errorsMin: 5, errorsRatio: 0.1 },
};
const T0 = 1_700_000_000_000;
const quiet: AimdWindow = { granted: 0, accepted: 0, congested: 0, errors5xx: 0, timeouts: 0 };
const state = (rate: number, windowStartMs = T0, lastDecreaseMs = 0): AimdState => ({
  rate,
  windowStartMs,
  lastDecreaseMs,
});

describe('AIMD rate', () => {
  describe('helpers', () => {
    it('clamps a rate between floor and ceiling', () => {
      expect(clampRate(10, params)).toBe(50);
      expect(clampRate(5000, params)).toBe(1000);
      expect(clampRate(400, params)).toBe(400);
    });

    it('starts from the ceiling or the floor', () => {
      expect(initialRate(params, 'ceiling')).toBe(1000);
      expect(initialRate(params, 'floor')).toBe(50);
    });

    it('re-seeds a credential whose state was lost while in use from the floor, whatever the start', () => {
      expect(seedRate(params, 'ceiling', true)).toBe(50);
      expect(seedRate(params, 'floor', true)).toBe(50);
      expect(seedRate(params, 'ceiling', false)).toBe(1000);
      expect(seedRate(params, 'floor', false)).toBe(50);
    });

    it('measures utilization as granted over rate x time, zero when nothing could be granted', () => {
      expect(utilization(400, 400, 1000)).toBe(1);
      expect(utilization(200, 400, 2000)).toBe(0.25);
      expect(utilization(10, 0, 1000)).toBe(0);
      expect(utilization(10, 100, 0)).toBe(0);
    });
  });

  describe('decrease', () => {
    const congested: AimdWindow = { ...quiet, granted: 100, accepted: 90, congested: 10 };

    it('cuts multiplicatively at once on throttling, naming the cause', () => {
      expect(decideAimd(state(800), congested, T0 + 10, params)).toEqual({
        action: 'decrease',
        rate: 560,
        cause: 'throttled',
      });
    });

    it('judges 5xx and timeouts over a whole interval, naming the larger as the cause', () => {
      const errors: AimdWindow = { ...quiet, accepted: 40, errors5xx: 6, timeouts: 4 };
      expect(decideAimd(state(800), errors, T0 + 10, params)).toEqual({ action: 'hold' });
      expect(decideAimd(state(800), errors, T0 + 1000, params)).toEqual({
        action: 'decrease',
        rate: 560,
        cause: 'server_error',
      });
      const timeouts: AimdWindow = { ...quiet, accepted: 40, timeouts: 10 };
      expect(decideAimd(state(800), timeouts, T0 + 1000, params)).toMatchObject({ cause: 'timeout' });
    });

    it('does not cut for one failed bulk request early in a window of healthy sends', () => {
      // A request of 60 messages answered 5xx, the first report of a new window.
      const early: AimdWindow = { ...quiet, granted: 60, errors5xx: 60 };
      expect(decideAimd(state(800), early, T0 + 20, params)).toEqual({ action: 'hold' });
      // By the end of the interval the window holds the healthy sends too: 60 of 860 is below 10%.
      const whole: AimdWindow = { ...quiet, granted: 860, accepted: 800, errors5xx: 60 };
      expect(decideAimd(state(800), whole, T0 + 1000, params)).toEqual({ action: 'increase', rate: 850 });
    });

    it('cuts for 5xx on most requests once the interval is over', () => {
      const failing: AimdWindow = { ...quiet, granted: 800, accepted: 500, errors5xx: 300 };
      expect(decideAimd(state(800), failing, T0 + 999, params)).toEqual({ action: 'hold' });
      expect(decideAimd(state(800), failing, T0 + 1000, params)).toMatchObject({
        action: 'decrease',
        cause: 'server_error',
      });
    });

    it('never cuts below the floor', () => {
      expect(decideAimd(state(60), congested, T0, params)).toMatchObject({ action: 'decrease', rate: 50 });
      expect(decideAimd(state(50), congested, T0, params)).toMatchObject({ action: 'decrease', rate: 50 });
    });

    it('cuts at most once per cooldown and discards the congestion seen inside it', () => {
      const cutAt = T0 + 5000;
      expect(decideAimd(state(560, cutAt, cutAt), congested, cutAt + 999, params)).toEqual({
        action: 'restart',
        rate: 560,
        reason: 'cooldown',
      });
      expect(decideAimd(state(560, cutAt, cutAt), congested, cutAt + 1000, params)).toMatchObject({
        action: 'decrease',
        rate: 392,
      });
    });

    it('ignores signals below the congestion thresholds', () => {
      const stray: AimdWindow = { ...quiet, granted: 1000, accepted: 998, congested: 2, errors5xx: 4 };
      expect(decideAimd(state(800), stray, T0 + 10, params)).toEqual({ action: 'hold' });
      expect(decideAimd(state(800), stray, T0 + 1000, params)).toEqual({ action: 'increase', rate: 850 });
    });

    it('cuts from the clamped rate when the bounds moved under a stored rate', () => {
      expect(decideAimd(state(5000), congested, T0, params)).toMatchObject({ rate: 700 });
    });
  });

  describe('increase', () => {
    const used = (rate: number, ms: number, share = 1): AimdWindow => ({
      ...quiet,
      granted: (rate * ms * share) / 1000,
      accepted: (rate * ms * share) / 1000,
    });

    it('holds until a full interval has passed', () => {
      expect(decideAimd(state(500), used(500, 999), T0 + 999, params)).toEqual({ action: 'hold' });
      expect(decideAimd(state(500), quiet, T0 + 10, params)).toEqual({ action: 'hold' });
    });

    it('adds one step (a fraction of the ceiling) per used interval', () => {
      expect(decideAimd(state(500), used(500, 1000), T0 + 1000, params)).toEqual({
        action: 'increase',
        rate: 550,
      });
      expect(decideAimd(state(500), used(500, 1000, 0.8), T0 + 1000, params)).toEqual({
        action: 'increase',
        rate: 550,
      });
    });

    it('does not climb while the bucket is not used near its rate', () => {
      expect(decideAimd(state(500), used(500, 1000, 0.79), T0 + 1000, params)).toEqual({
        action: 'restart',
        rate: 500,
        reason: 'underused',
      });
      expect(decideAimd(state(500), quiet, T0 + 60_000, params)).toMatchObject({ reason: 'underused' });
    });

    it('never climbs above the ceiling', () => {
      expect(decideAimd(state(980), used(980, 1000), T0 + 1000, params)).toEqual({
        action: 'increase',
        rate: 1000,
      });
      expect(decideAimd(state(1000), used(1000, 1000), T0 + 1000, params)).toEqual({
        action: 'restart',
        rate: 1000,
        reason: 'at_ceiling',
      });
    });

    it('lifts a stored rate below a raised floor', () => {
      expect(decideAimd(state(10), used(50, 1000), T0 + 1000, params)).toEqual({
        action: 'increase',
        rate: 100,
      });
    });
  });

  describe('against a simulated provider (seed 002: real capacity below the advertised one)', () => {
    it('settles within 30 s to 50-100% of a capacity at 65% of the ceiling, with under 5% throttled', () => {
      for (const start of ['ceiling', 'floor'] as const) {
        const run = simulate({ start, seconds: 60, capacity: () => 650 });
        const settled = run.seconds.slice(30);
        for (const s of settled) {
          expect(s.accepted).toBeGreaterThanOrEqual(0.5 * 650);
          expect(s.accepted).toBeLessThanOrEqual(650 * 1.05);
          expect(s.granted).toBeGreaterThanOrEqual(0.5 * 650);
        }
        expect(throttledShare(settled)).toBeLessThan(0.05);
      }
    });

    it('follows the capacity when it doubles, up to the ceiling', () => {
      const belowCeiling = simulate({ start: 'ceiling', seconds: 90, capacity: (t) => (t < 30 ? 300 : 600) });
      for (const s of belowCeiling.seconds.slice(60)) {
        expect(s.accepted).toBeGreaterThanOrEqual(0.5 * 600);
        expect(s.accepted).toBeLessThanOrEqual(600 * 1.05);
      }
      expect(throttledShare(belowCeiling.seconds.slice(60))).toBeLessThan(0.05);

      const aboveCeiling = simulate({
        start: 'ceiling',
        seconds: 90,
        capacity: (t) => (t < 30 ? 650 : 1300),
      });
      for (const s of aboveCeiling.seconds.slice(60)) {
        expect(s.granted).toBeCloseTo(1000, 0);
        expect(s.throttled).toBe(0);
      }
    });

    it('comes down again when the capacity halves', () => {
      const run = simulate({ start: 'ceiling', seconds: 90, capacity: (t) => (t < 30 ? 800 : 400) });
      for (const s of run.seconds.slice(60)) {
        expect(s.accepted).toBeGreaterThanOrEqual(0.5 * 400);
        expect(s.accepted).toBeLessThanOrEqual(400 * 1.05);
      }
      expect(throttledShare(run.seconds.slice(60))).toBeLessThan(0.05);
    });

    it('is not pushed down by stray 429s below the threshold', () => {
      const run = simulate({ start: 'floor', seconds: 40, capacity: () => 5000, strayThrottledShare: 0.005 });
      expect(run.seconds.at(-1)?.granted).toBeCloseTo(1000, 0);
      expect(run.decreases).toBe(0);
    });

    it('stays between floor and ceiling at every step, whatever the provider does', () => {
      const run = simulate({
        start: 'ceiling',
        seconds: 90,
        capacity: (t) => (Math.floor(t / 30) % 2 === 0 ? 0 : 3000),
      });
      expect(Math.min(...run.rates)).toBeGreaterThanOrEqual(params.floor);
      expect(Math.max(...run.rates)).toBeLessThanOrEqual(params.ceiling);
      expect(run.rates).toContain(params.floor);
      expect(run.rates).toContain(params.ceiling);
    });
  });
});

interface SecondStats {
  granted: number;
  accepted: number;
  throttled: number;
}

/**
 * A sender that always has work, driving a provider that accepts `capacity(t)` messages/s (a
 * token bucket 50 ms deep) and throttles the rest; outcomes come back 100 ms later (the call's
 * latency), and the rule is evaluated on every tick, as senders report per batch.
 */
function simulate(options: {
  start: AimdStart;
  seconds: number;
  capacity: (tSeconds: number) => number;
  strayThrottledShare?: number;
}): { seconds: SecondStats[]; rates: number[]; decreases: number } {
  const tickMs = 20;
  const latencyTicks = 5;
  let s: AimdState = { rate: initialRate(params, options.start), windowStartMs: T0, lastDecreaseMs: 0 };
  let w: AimdWindow = quiet;
  let providerTokens = 0;
  let decreases = 0;
  const inFlight: { accepted: number; throttled: number }[] = [];
  const seconds: SecondStats[] = [];
  const rates: number[] = [];
  for (let tick = 0; tick * tickMs < options.seconds * 1000; tick++) {
    const now = T0 + tick * tickMs;
    const second = Math.floor((tick * tickMs) / 1000);
    const stats = (seconds[second] ??= { granted: 0, accepted: 0, throttled: 0 });
    const capacity = options.capacity((tick * tickMs) / 1000);
    providerTokens = Math.min(capacity * 0.05, providerTokens + (capacity * tickMs) / 1000);
    const sent = (s.rate * tickMs) / 1000;
    const stray = sent * (options.strayThrottledShare ?? 0);
    const accepted = Math.min(sent - stray, providerTokens);
    providerTokens -= accepted;
    stats.granted += sent;
    stats.accepted += accepted;
    stats.throttled += sent - accepted;
    w = { ...w, granted: w.granted + sent };
    inFlight.push({ accepted, throttled: sent - accepted });
    const back = inFlight.length > latencyTicks ? inFlight.shift() : undefined;
    if (back !== undefined) {
      w = { ...w, accepted: w.accepted + back.accepted, congested: w.congested + back.throttled };
    }
    const step = decideAimd(s, w, now, params);
    if (step.action !== 'hold') {
      if (step.action === 'decrease') decreases++;
      s = {
        rate: step.rate,
        windowStartMs: now,
        lastDecreaseMs: step.action === 'decrease' ? now : s.lastDecreaseMs,
      };
      w = quiet;
    }
    rates.push(s.rate);
  }
  return { seconds, rates, decreases };
}

function throttledShare(seconds: readonly SecondStats[]): number {
  const throttled = seconds.reduce((sum, x) => sum + x.throttled, 0);
  const attempts = seconds.reduce((sum, x) => sum + x.accepted + x.throttled, 0);
  return throttled / attempts;
}
