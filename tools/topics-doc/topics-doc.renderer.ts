import { AllTopics, CloudEventHeaders, KafkaHeaders, type MessageClass } from '@ums/contracts';
import { getMetadataStorage } from 'class-validator';
import { schemaFileOf } from '../asyncapi/message-schema.renderer';

const HOUR = 3_600_000;

/** Renders docs/topics.md from the contracts, so the document cannot drift from the code. */
export function renderTopicsDoc(): string {
  const lines: string[] = [
    '# Topics',
    '',
    '<!-- Generated from libs/contracts by `npm run docs:topics`; a test fails when this file is stale. -->',
    '',
    'Every topic carries a version in its name; a breaking change of a message is a new topic (`.v2`) that',
    'runs beside the old one until its producers and consumers have moved. Values are JSON, validated on',
    'consumption against the classes in `libs/contracts`: unknown fields are ignored (so a newer minor',
    'version does not break older consumers), invalid messages go to `ums.dead-letters.v1` with the reason.',
    'Topics are created explicitly (`ums-admin create-topics`, apps/ums-admin, run by the Kubernetes topic job), never auto-created.',
    '',
    'For producers and consumers in other languages: the [AsyncAPI 3.0 document](asyncapi/asyncapi.yaml) of these',
    'topics, a JSON Schema of each value (linked from the table) and kcat samples, in [asyncapi/](asyncapi/README.md).',
    '',
    '| topic | value | key | partitions | retention | delay | purpose |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const topic of AllTopics) {
    lines.push(
      `| \`${topic.name}\` | [${topic.value.name}](asyncapi/${schemaFileOf(topic.value)}) | <code>${keySource(topic.keyOf)}</code> | ${topic.partitions} | ${formatMs(topic.retentionMs)} | ${topic.delayMs === undefined ? '' : formatMs(topic.delayMs)} | ${topic.description} |`,
    );
  }
  lines.push(
    '',
    '## Headers',
    '',
    'Set by the platform on retry tiers and dead letters, and by the campaign-scheduler on replayed dead letters:',
    '',
    ...Object.entries(KafkaHeaders).map(([name, header]) => `- \`${header}\` (${name})`),
    '',
    `Records of ${AllTopics.filter((t) => t.cloudEvent !== undefined)
      .map((t) => `\`${t.name}\``)
      .join(', ')} carry CloudEvents attributes as headers (Kafka protocol binding, binary content mode):`,
    `${Object.values(CloudEventHeaders)
      .map((h) => `\`${h}\``)
      .join(', ')}. Each topic's headers are in the AsyncAPI document.`,
    '',
    '## Retries',
    '',
    'A consumer whose handler fails retries in place a few times, then forwards the message, bytes unchanged,',
    'to the next delay-tier topic with `ums-due-at` set (the delay plus up to 20% jitter). A separate consumer',
    'group reads the tiers and pauses a tier partition until its head message is due, so a long delay never',
    'holds back a shorter one, and no message is retried before it is due. After the last tier the message',
    'goes to the dead-letter topic with `errorCode` `RETRIES_EXHAUSTED`.',
    '',
    '## Message schemas',
    '',
  );
  const classes = new Map<string, MessageClass<object>>();
  for (const topic of AllTopics) classes.set(topic.value.name, topic.value);
  for (const cls of classes.values()) lines.push(...renderClass(cls, new Set()));
  return `${lines.join('\n')}\n`;
}

function renderClass(cls: MessageClass<object>, seen: Set<string>): string[] {
  if (seen.has(cls.name)) return [];
  seen.add(cls.name);
  const metadata = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  const byField = new Map<string, string[]>();
  const nested: MessageClass<object>[] = [];
  for (const m of metadata) {
    const rules = byField.get(m.propertyName) ?? [];
    const rule = m.name ?? (m.type === 'conditionalValidation' ? 'optional-or-conditional' : m.type);
    if (m.type === 'nestedValidation') {
      const target = Reflect.getMetadata('design:type', cls.prototype, m.propertyName) as
        MessageClass<object> | undefined;
      if (target !== undefined && target !== Array && target !== Object) nested.push(target);
    }
    if (!rules.includes(rule)) rules.push(rule);
    byField.set(m.propertyName, rules);
  }
  const lines = [`### ${cls.name}`, '', '| field | rules |', '|---|---|'];
  for (const [field, rules] of byField) lines.push(`| \`${field}\` | ${rules.join(', ')} |`);
  lines.push('');
  for (const child of nested) lines.push(...renderClass(child, seen));
  return lines;
}

function keySource(keyOf: (value: never) => string): string {
  return keyOf.toString().replace(/\s+/g, ' ').replace(/\|/g, '\\|');
}

function formatMs(ms: number): string {
  if (ms % (24 * HOUR) === 0) return `${ms / (24 * HOUR)} d`;
  if (ms % HOUR === 0) return `${ms / HOUR} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${ms / 1000} s`;
}
