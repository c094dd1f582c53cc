import { AllTopics, KafkaHeaders, Topics } from '@ums/contracts';

/** Topics a dead letter may go back to: every topic of the flow but the dead-letter topic itself. */
const REPLAYABLE = new Set(AllTopics.map((t) => t.name).filter((name) => name !== Topics.deadLetters.name));

/** Headers of a retry-tier hop: a replay starts the message afresh on its first topic, so they go. */
const HOP_HEADERS: readonly string[] = [
  KafkaHeaders.dueAt,
  KafkaHeaders.attempt,
  KafkaHeaders.originTopic,
  KafkaHeaders.lastError,
  KafkaHeaders.deadLetterReplay,
];

export type ReplayTarget =
  { readonly ok: true; readonly topic: string } | { readonly ok: false; readonly reason: string };

/**
 * Where a dead letter goes back to: the topic the message was first consumed from (a retry tier's copy
 * names it in `ums-origin-topic`), else the topic it failed on. `logicalSource` is that topic without
 * the namespace prefix (undefined when it belongs to another namespace).
 */
export function replayTarget(
  headers: Readonly<Record<string, string>>,
  logicalSource: string | undefined,
): ReplayTarget {
  const topic = headers[KafkaHeaders.originTopic] ?? logicalSource;
  if (topic === undefined) return { ok: false, reason: 'its source topic is not of this namespace' };
  if (!REPLAYABLE.has(topic))
    return { ok: false, reason: `${topic} is not a topic a dead letter goes back to` };
  return { ok: true, topic };
}

/** The headers a replayed message carries: the original ones without the tier hop's, plus the dead letter's id. */
export function replayHeaders(
  headers: Readonly<Record<string, string>>,
  deadLetterId: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!HOP_HEADERS.includes(name)) out[name] = value;
  out[KafkaHeaders.deadLetterReplay] = deadLetterId;
  return out;
}

/** The original bytes of a stored value. */
export function replayValue(value: string | null, encoding: 'utf8' | 'base64'): Buffer | null {
  if (value === null) return null;
  return encoding === 'base64' ? Buffer.from(value, 'base64') : Buffer.from(value, 'utf8');
}
