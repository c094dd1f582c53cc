import {
  type CongestionKind,
  type CongestionThresholds,
  congestionOf,
  type SendSignals,
} from './congestion-signal';

/**
 * Additive increase, multiplicative decrease of one credential's send rate (docs/architecture.md,
 * Sending; seed 002: providers deliver 60-70% of what they advertise, so the rate is probed).
 * Rates are messages per second.
 */
export interface AimdParams {
  /** Never above this (the provider's advertised or contracted limit). */
  readonly ceiling: number;
  /** Never below this, however congested. */
  readonly floor: number;
  /** Added once per interval while healthy and used, as a fraction of the ceiling. */
  readonly increaseFraction: number;
  /** The rate is multiplied by this on congestion (0 < f < 1). */
  readonly decreaseFactor: number;
  readonly intervalMs: number;
  /**
   * At most one cut per cooldown: the signals that arrive just after a cut were caused by sends
   * made before it, and counting them again would collapse the rate.
   */
  readonly cooldownMs: number;
  /** Granted / (rate x time) a window must reach before an increase: an idle credential does not climb. */
  readonly minUtilization: number;
  readonly congestion: CongestionThresholds;
}

export type AimdStart = 'ceiling' | 'floor';

/** What is shared by every replica for one credential. */
export interface AimdState {
  readonly rate: number;
  readonly windowStartMs: number;
  /** 0 when the rate was never cut. */
  readonly lastDecreaseMs: number;
}

/** Signals accumulated since `windowStartMs`. */
export interface AimdWindow extends SendSignals {
  /** Tokens the bucket granted (both lanes) since the window started. */
  readonly granted: number;
}

export type AimdRestartReason = 'cooldown' | 'underused' | 'at_ceiling';

/**
 * The decision for a credential. Every step but `hold` starts a new window (its signals are
 * used up); `increase` and `decrease` also change the rate.
 */
export type AimdStep =
  | { readonly action: 'hold' }
  | { readonly action: 'increase'; readonly rate: number }
  | { readonly action: 'decrease'; readonly rate: number; readonly cause: CongestionKind }
  | { readonly action: 'restart'; readonly rate: number; readonly reason: AimdRestartReason };

export function clampRate(rate: number, params: Pick<AimdParams, 'ceiling' | 'floor'>): number {
  return Math.min(params.ceiling, Math.max(params.floor, rate));
}

/** The rate a credential starts from: the ceiling (fast, a few 429s first) or the floor (safe, climbs). */
export function initialRate(params: Pick<AimdParams, 'ceiling' | 'floor'>, start: AimdStart): number {
  return start === 'ceiling' ? params.ceiling : params.floor;
}

/**
 * The rate a credential's missing state is created with: `initialRate` for a credential new to the
 * limiter (or idle past its keys' lifetime), the floor when its state was lost while in use (Redis
 * restarted empty): the rate it had learned is gone, so it climbs again from the safe end.
 */
export function seedRate(
  params: Pick<AimdParams, 'ceiling' | 'floor'>,
  start: AimdStart,
  stateLost: boolean,
): number {
  return stateLost ? params.floor : initialRate(params, start);
}

/** Share of the possible tokens that were granted over `elapsedMs` at `rate`. */
export function utilization(granted: number, rate: number, elapsedMs: number): number {
  if (rate <= 0 || elapsedMs <= 0) return 0;
  return granted / ((rate * elapsedMs) / 1000);
}

/**
 * The next step for a credential, evaluated whenever signals arrive. Throttling cuts at once (once
 * per cooldown; congestion inside the cooldown is discarded). 5xx and timeouts are judged over a whole
 * interval: early in a window the few requests reported are no sample of the provider's health.
 * Without congestion the rate grows by one step per full interval in
 * which the bucket was used near its rate.
 */
export function decideAimd(
  state: AimdState,
  window: AimdWindow,
  nowMs: number,
  params: AimdParams,
): AimdStep {
  const rate = clampRate(state.rate, params);
  const cause = congestionOf(window, params.congestion);
  const elapsedMs = nowMs - state.windowStartMs;
  const whole = elapsedMs >= params.intervalMs;
  if (cause === 'throttled' || (cause !== undefined && whole)) {
    if (nowMs - state.lastDecreaseMs < params.cooldownMs)
      return { action: 'restart', rate, reason: 'cooldown' };
    return { action: 'decrease', rate: Math.max(params.floor, rate * params.decreaseFactor), cause };
  }
  if (!whole) return { action: 'hold' };
  if (rate >= params.ceiling) return { action: 'restart', rate, reason: 'at_ceiling' };
  if (utilization(window.granted, rate, elapsedMs) < params.minUtilization) {
    return { action: 'restart', rate, reason: 'underused' };
  }
  return {
    action: 'increase',
    rate: Math.min(params.ceiling, rate + params.ceiling * params.increaseFraction),
  };
}
