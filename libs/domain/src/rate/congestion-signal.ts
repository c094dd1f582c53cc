/** Why a provider is considered congested: the label of the congestion metrics. */
export type CongestionKind = 'throttled' | 'server_error' | 'timeout';

/** Outcomes of provider calls since a window started (one credential, every sender replica). */
export interface SendSignals {
  /** Messages the provider took. */
  readonly accepted: number;
  /** 429 and provider-specific throttling codes. */
  readonly congested: number;
  readonly errors5xx: number;
  readonly timeouts: number;
}

/**
 * When signals mean congestion. Each needs a count and a share of the attempts, so a lone 429
 * or a stray 5xx among thousands of accepted sends does not cut the rate.
 */
export interface CongestionThresholds {
  readonly congestedMin: number;
  /** 0..1 of the attempts in the window. */
  readonly congestedRatio: number;
  /** 5xx and timeouts together: one burst of either is the same overload. */
  readonly errorsMin: number;
  readonly errorsRatio: number;
}

export function attemptsOf(signals: SendSignals): number {
  return signals.accepted + signals.congested + signals.errors5xx + signals.timeouts;
}

/**
 * The congestion these signals show, or undefined when the provider looks healthy. Throttling
 * wins over errors (it is the provider saying exactly "too fast"); between 5xx and timeouts the
 * larger count names the kind.
 */
export function congestionOf(signals: SendSignals, t: CongestionThresholds): CongestionKind | undefined {
  const attempts = attemptsOf(signals);
  if (attempts <= 0) return undefined;
  if (signals.congested >= t.congestedMin && signals.congested >= t.congestedRatio * attempts) {
    return 'throttled';
  }
  const errors = signals.errors5xx + signals.timeouts;
  if (errors >= t.errorsMin && errors >= t.errorsRatio * attempts) {
    return signals.timeouts > signals.errors5xx ? 'timeout' : 'server_error';
  }
  return undefined;
}
