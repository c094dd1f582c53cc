import { describeMismatch, type EnsureTopicsResult } from '@ums/platform';

/** What create-topics prints and its exit code. */
export interface CreateTopicsOutcome {
  readonly lines: readonly string[];
  readonly exitCode: number;
}

/**
 * An existing topic weaker than declared (fewer partitions or replicas, a lower min.insync.replicas, or
 * one above its replicas) fails the job, so that a rollout does not go on against it: exit code 2, after
 * the missing topics were created. Larger settings are printed as warnings only. `reportOnly` prints
 * everything and exits 0.
 */
export function createTopicsOutcome(result: EnsureTopicsResult, reportOnly: boolean): CreateTopicsOutcome {
  const errors = result.mismatches.filter((m) => m.severity === 'error');
  const lines = [
    `${result.created.length} topic(s) created, ${result.existing.length} already present`,
    ...result.mismatches.map(describeMismatch),
  ];
  if (errors.length === 0 || reportOnly) return { lines, exitCode: 0 };
  return {
    lines: [
      ...lines,
      `${errors.length} setting(s) of existing topics are below what the contracts and --replication declare;` +
        ' fix the topics (kafka-topics --alter --partitions, a reassignment, kafka-configs) or pass --report-only',
    ],
    exitCode: 2,
  };
}
