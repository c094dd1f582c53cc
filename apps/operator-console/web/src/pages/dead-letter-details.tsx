import type { DeadLetterView } from '../api/api.types';
import { formatTime } from '../format/format';

/** Everything stored of one dead letter: where it came from, its key, headers and value. */
export function DeadLetterDetails({ letter }: { letter: DeadLetterView }) {
  const facts: [string, string][] = [
    ['Consumer group', letter.consumerGroup],
    ['Partition / offset', `${letter.sourcePartition} / ${letter.sourceOffset}`],
    ['Replays to', letter.replayTo ?? 'cannot be replayed'],
    ['Attempts', String(letter.attempts)],
    ['Last replayed', formatTime(letter.replayedAt)],
    ['Stored', formatTime(letter.createdAt)],
    ['Key', letter.key ?? '—'],
  ];
  return (
    <div class="details">
      <dl class="facts">
        {facts.map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <h3>Headers</h3>
      <pre class="code-block">{JSON.stringify(letter.headers, null, 2)}</pre>
      <h3>Value ({letter.valueEncoding})</h3>
      <pre class="code-block">{prettyValue(letter)}</pre>
    </div>
  );
}

function prettyValue(letter: DeadLetterView): string {
  if (letter.value === null) return '(none)';
  if (letter.valueEncoding !== 'utf8') return letter.value;
  try {
    return JSON.stringify(JSON.parse(letter.value), null, 2);
  } catch {
    return letter.value;
  }
}
