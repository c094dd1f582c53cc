import type { CredentialRateSecond } from '../api/api.types';
import { type ChartColumns, secondsOf } from './run-series';

/** The most seconds the credential chart draws (the rate route's default window). */
export const MAX_CHART_SECONDS = 300;

/**
 * A credential's rate series as chart columns, one entry per second from its first to its last: a second
 * without figures has no rate (a gap in the line) and no 429s.
 */
export function credentialRateColumns(series: readonly CredentialRateSecond[]): ChartColumns {
  const bySecond = new Map<number, CredentialRateSecond>();
  for (const second of series) {
    const at = secondsOf(second.at);
    if (!Number.isNaN(at)) bySecond.set(at, second);
  }
  if (bySecond.size === 0) return [[], [], []];
  const seconds = [...bySecond.keys()];
  const last = Math.max(...seconds);
  const first = Math.max(Math.min(...seconds), last - MAX_CHART_SECONDS + 1);
  const x: number[] = [];
  const rate: (number | null)[] = [];
  const congested: number[] = [];
  for (let at = first; at <= last; at++) {
    const figures = bySecond.get(at);
    x.push(at);
    rate.push(figures?.rate ?? null);
    congested.push(figures?.congested ?? 0);
  }
  return [x, rate, congested];
}
