import { FailureReason } from '@ums/contracts';
import {
  classifySimulatorItem,
  classifySimulatorRequestError,
  SIMULATOR_ITEM_CODES,
} from './simulator-outcome';

const EXPECTED_REASONS: Record<string, FailureReason> = {
  INVALID_NUMBER: FailureReason.InvalidRecipient,
  INVALID_RECIPIENT: FailureReason.InvalidRecipient,
  UNDELIVERABLE: FailureReason.InvalidRecipient,
  BLOCKED: FailureReason.Blocked,
  OPTED_OUT: FailureReason.OptedOut,
  THROTTLED: FailureReason.Throttled,
  EXPIRED: FailureReason.Expired,
  TEMPORARY_ERROR: FailureReason.ProviderError,
  PROVIDER_ERROR: FailureReason.ProviderError,
  TIMEOUT: FailureReason.Timeout,
  REJECTED: FailureReason.Rejected,
};

describe('simulator item codes', () => {
  it('has an expectation for every code of the table', () => {
    expect(Object.keys(EXPECTED_REASONS).sort()).toEqual([...SIMULATOR_ITEM_CODES].sort());
  });

  it.each(Object.entries(EXPECTED_REASONS))('%s -> %s, retried as the simulator says', (code, reason) => {
    expect(classifySimulatorItem(code, false, 'm')).toEqual({ kind: 'permanent', reason, code, detail: 'm' });
    expect(classifySimulatorItem(code, true)).toEqual({
      kind: 'retryable',
      reason,
      code,
      congestion: code === 'THROTTLED',
      ambiguous: false,
    });
  });

  it('gives unknown codes a reason from the retryable flag', () => {
    expect(classifySimulatorItem('NEW_CODE', true)).toMatchObject({
      reason: FailureReason.ProviderError,
      congestion: false,
    });
    expect(classifySimulatorItem('NEW_CODE', false)).toMatchObject({ reason: FailureReason.Rejected });
    expect(classifySimulatorItem(undefined, false)).toMatchObject({ code: 'REJECTED' });
  });

  it('classifies a failed whole request by its status', () => {
    expect(classifySimulatorRequestError({ status: 429, retryAfterMs: 1000 })).toMatchObject({
      kind: 'retryable',
      congestion: true,
      retryAfterMs: 1000,
    });
    expect(classifySimulatorRequestError({ status: 500 })).toMatchObject({
      kind: 'retryable',
      congestion: false,
    });
    expect(classifySimulatorRequestError({ status: 401 })).toMatchObject({ kind: 'permanent' });
  });
});
