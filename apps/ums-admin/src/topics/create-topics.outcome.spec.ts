import type { EnsureTopicsResult } from '@ums/platform';
import { createTopicsOutcome } from './create-topics.outcome';

const result = (severities: ('error' | 'warning')[]): EnsureTopicsResult => ({
  created: ['a'],
  existing: ['b', 'c'],
  mismatches: severities.map((severity) => ({
    topic: 'b',
    setting: 'partitions',
    expected: 12,
    actual: severity === 'error' ? 6 : 24,
    severity,
  })),
});

describe('createTopicsOutcome', () => {
  it('succeeds with no mismatch, and with warnings only', () => {
    expect(createTopicsOutcome(result([]), false)).toEqual({
      lines: ['1 topic(s) created, 2 already present'],
      exitCode: 0,
    });
    const warned = createTopicsOutcome(result(['warning']), false);
    expect(warned.exitCode).toBe(0);
    expect(warned.lines[1]).toBe('warning: b has partitions=24, expected 12');
  });

  it('fails with exit code 2 on an error, unless --report-only', () => {
    const failed = createTopicsOutcome(result(['warning', 'error']), false);
    expect(failed.exitCode).toBe(2);
    expect(failed.lines.at(-1)).toMatch(/^1 setting\(s\) of existing topics are below/);
    expect(createTopicsOutcome(result(['error']), true).exitCode).toBe(0);
  });
});
