import type { RunCounters } from '../api/api.types';
import { formatCount } from '../format/format';

const SHOWN: readonly (keyof RunCounters)[] = [
  'total',
  'pending',
  'sending',
  'sent',
  'delivered',
  'read',
  'failed',
  'unknown',
  'skipped',
];

const LABELS: Readonly<Record<keyof RunCounters, string>> = {
  total: 'Total',
  pending: 'Pending',
  sending: 'Sending',
  sent: 'Sent',
  delivered: 'Delivered',
  read: 'Read',
  failed: 'Failed',
  unknown: 'Unknown',
  skipped: 'Skipped',
};

const COMPACT: readonly (keyof RunCounters)[] = ['sent', 'delivered', 'read', 'failed', 'unknown'];

/**
 * A run's counters as a description list; the full one (the run page's) marks each value with
 * data-testid `counter-<name>`, the compact one (in tables) shows the outcomes only.
 */
export function CountersList({ counters, compact }: { counters: RunCounters; compact?: boolean }) {
  const small = compact === true;
  return (
    <dl class={small ? 'counters counters-compact' : 'counters'}>
      {(small ? COMPACT : SHOWN).map((name) => (
        <div class={`counter counter-${name}`} key={name}>
          <dt>{LABELS[name]}</dt>
          <dd data-testid={small ? undefined : `counter-${name}`}>{formatCount(counters[name])}</dd>
        </div>
      ))}
    </dl>
  );
}
