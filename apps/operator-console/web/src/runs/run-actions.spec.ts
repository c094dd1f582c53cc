import type { RunCounters } from '../api/api.types';
import { describeRunAction, isRunActionAvailable, RUN_ACTIONS, runActionDone } from './run-actions';

const counters: RunCounters = {
  total: 200,
  pending: 120,
  sending: 3,
  sent: 10,
  delivered: 10,
  read: 0,
  failed: 1,
  unknown: 47,
  skipped: 9,
};

describe('run actions', () => {
  it('are available in the states the API accepts them in', () => {
    const available = (state: string): string[] =>
      RUN_ACTIONS.filter((spec) => isRunActionAvailable(spec.action, state, counters)).map(
        (spec) => spec.label,
      );
    expect(available('RUNNING')).toEqual(['Pause', 'Stop', 'Resend unknown']);
    expect(available('PAUSED')).toEqual(['Resume', 'Stop']);
    expect(available('SCHEDULED')).toEqual(['Pause']);
    expect(available('COMPLETED')).toEqual(['Retry failed', 'Resend unknown']);
    expect(available('STOPPED')).toEqual(['Retry failed', 'Resend unknown']);
    expect(available('PENDING')).toEqual([]);
  });

  it('are not offered when there is nothing to retry or resend', () => {
    const settled = { ...counters, failed: 0, unknown: 0 };
    expect(isRunActionAvailable('retry-failed', 'COMPLETED', settled)).toBe(false);
    expect(isRunActionAvailable('resend-unknown', 'RUNNING', settled)).toBe(false);
    expect(isRunActionAvailable('pause', 'RUNNING', settled)).toBe(true);
  });

  it('say what they will do with the counters', () => {
    expect(describeRunAction('resend-unknown', counters)).toMatch(
      /^Resend unknown: 47 messages in UNKNOWN will be sent again\./,
    );
    expect(describeRunAction('retry-failed', counters)).toMatch(
      /^Retry failed: 1 message in FAILED will be sent again/,
    );
    expect(describeRunAction('pause', counters)).toContain('120 pending messages will wait');
    expect(describeRunAction('resume', counters)).toBe(
      'Resume: sending restarts; 120 pending messages will be sent.',
    );
    expect(describeRunAction('stop', counters)).toContain('120 pending messages will not be sent');
  });

  it('report the outcome', () => {
    expect(runActionDone('resend-unknown', 'RUNNING', 47)).toBe(
      'Resend unknown: done, the run is RUNNING; 47 messages queued again.',
    );
    expect(runActionDone('pause', 'PAUSED')).toBe('Pause: done, the run is PAUSED.');
  });
});
