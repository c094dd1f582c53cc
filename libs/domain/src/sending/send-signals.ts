import { FailureReason } from '@ums/contracts';
import type { SendSignals } from '../rate/congestion-signal';
import { NOT_SENT_CODES, type SendResult } from './send-disposition';

/**
 * A send result, with the provider request it went in when that request carried several messages
 * (an index unique among the results reported together). Results without one were requests alone.
 */
export type SignalledResult = SendResult & { readonly request?: number };

type Signal = keyof SendSignals;

function noSignals(): Record<Signal, number> {
  return { accepted: 0, congested: 0, errors5xx: 0, timeouts: 0 };
}

/** Worse first: on a tie inside one request, the worse signal names it. */
const SEVERITY: readonly Signal[] = ['congested', 'timeouts', 'errors5xx', 'accepted'];

/**
 * What a set of send results tells AIMD about the provider: accepted, throttled (congestion other
 * than timeouts), 5xx without congestion, timeouts. The unit is the provider request: a bulk request
 * answered 503 is one throttled request, not a hundred, and its accepted neighbours count one each
 * too, so a stray failure weighs the same whatever the request size. A request of several messages
 * signals what most of its sent messages said. Messages never sent are no signal at all, and
 * permanent rejections (a bad number) say nothing about the provider's load.
 */
export function sendSignalsOf(results: readonly SignalledResult[]): SendSignals {
  const counts = noSignals();
  const requests = new Map<number, Record<Signal, number>>();
  for (const result of results) {
    const signal = signalOf(result);
    if (signal === undefined) continue;
    if (result.request === undefined) {
      counts[signal]++;
      continue;
    }
    let tally = requests.get(result.request);
    if (tally === undefined) {
      tally = noSignals();
      requests.set(result.request, tally);
    }
    tally[signal]++;
  }
  for (const tally of requests.values()) counts[plurality(tally)]++;
  return counts;
}

function signalOf(result: SendResult): Signal | undefined {
  if (result.kind === 'accepted') return 'accepted';
  if (result.kind !== 'retryable' || NOT_SENT_CODES.has(result.code)) return undefined;
  if (result.reason === FailureReason.Timeout) return 'timeouts';
  if (result.congestion) return 'congested';
  return result.reason === FailureReason.ProviderError ? 'errors5xx' : undefined;
}

function plurality(tally: Readonly<Record<Signal, number>>): Signal {
  let best: Signal = 'congested';
  for (const signal of SEVERITY) if (tally[signal] > tally[best]) best = signal;
  return best;
}
