import { FailureReason } from '@ums/contracts';
import type { SendSignals } from '../rate/congestion-signal';
import { NOT_SENT_CODES, type SendResult } from './send-disposition';

/**
 * What a set of send results tells AIMD about the provider: accepted, throttled (congestion other
 * than timeouts), 5xx without congestion, timeouts. Messages never sent are no signal at all, and
 * permanent rejections (a bad number) say nothing about the provider's load.
 */
export function sendSignalsOf(results: readonly SendResult[]): SendSignals {
  let accepted = 0;
  let congested = 0;
  let errors5xx = 0;
  let timeouts = 0;
  for (const result of results) {
    if (result.kind === 'accepted') accepted++;
    else if (result.kind === 'retryable' && !NOT_SENT_CODES.has(result.code)) {
      if (result.reason === FailureReason.Timeout) timeouts++;
      else if (result.congestion) congested++;
      else if (result.reason === FailureReason.ProviderError) errors5xx++;
    }
  }
  return { accepted, congested, errors5xx, timeouts };
}
