import {
  AllTopics,
  CLOUDEVENTS_CONTENT_TYPE,
  CLOUDEVENTS_SPEC_VERSION,
  CloudEventHeaders,
  cloudEventSource,
  KafkaHeaders,
  type MessageClass,
  SendRetryTiers,
  type TopicDefinition,
  Topics,
} from '@ums/contracts';
import { LAST_ERROR_HEADER_CHARS } from '@ums/platform';
import { stringify } from 'yaml';
import { channelOperations, KAFKA_BINDING_VERSION, replayNote } from './asyncapi-operations';
import {
  classSchema,
  type JsonSchema,
  messageSchemaFile,
  nestedMessageClasses,
  schemaFileOf,
} from './message-schema.renderer';

const HOUR = 3_600_000;
const COMPONENT_SCHEMAS = '#/components/schemas/';

/**
 * Every file under docs/asyncapi the generator owns, by path relative to it: the AsyncAPI document and
 * one JSON Schema file per message class. Pure: the same contracts give the same bytes.
 */
export function renderAsyncApiFiles(): Map<string, string> {
  const files = new Map<string, string>();
  files.set('asyncapi.yaml', renderAsyncApiYaml());
  for (const [cls, topics] of classesOfTopics()) {
    const names = topics.map((t) => `\`${t.name}\``).join(', ');
    const description =
      `The JSON value of ${names}. Consumers ignore unknown fields; an optional field is left out, never null.` +
      ' Generated from libs/contracts by tools/asyncapi.';
    files.set(schemaFileOf(cls), `${JSON.stringify(messageSchemaFile(cls, description), null, 2)}\n`);
  }
  return files;
}

export function renderAsyncApiYaml(): string {
  const header = [
    '# Generated from libs/contracts by `npm run docs:asyncapi`; a test fails when this file is stale.',
    '# JSON Schema files of the message values: schemas/ beside this file.',
  ];
  return `${header.join('\n')}\n${stringify(asyncApiDocument(), { lineWidth: 0, aliasDuplicateObjects: false })}`;
}

/** The AsyncAPI 3.0 document of every topic in the contracts. */
export function asyncApiDocument(): JsonSchema {
  const channels: Record<string, JsonSchema> = {};
  for (const topic of AllTopics) channels[channelIdOf(topic)] = channelOf(topic);
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'UMS Kafka topics',
      version: '1.0.0',
      description: [
        'The topics of the UMS messaging platform: what each carries, its key, headers, partitions and retention,',
        'and which service sends and receives it. Values are JSON, validated on consumption against the classes',
        'in libs/contracts (the schemas here are generated from them): unknown fields are ignored, invalid',
        'records go to `ums.dead-letters.v1` with the reason. Every topic carries its version in its name; a',
        'breaking change is a new topic. With `KAFKA_NAMESPACE` set, a deployment prefixes every topic and',
        'consumer group with `<namespace>.`. Records of topics with CloudEvents headers (`ce_*`) follow the',
        'CloudEvents Kafka protocol binding in binary content mode: the value is the event data.',
        replayNote(),
      ]
        .filter((line) => line !== '')
        .join(' '),
    },
    defaultContentType: 'application/json',
    servers: {
      kafka: {
        host: '{bootstrap}',
        protocol: 'kafka',
        description:
          'Placeholder: each deployment names its own brokers (KAFKA_BROKERS of the services), TLS and SASL settings.',
        variables: {
          bootstrap: { default: 'localhost:9092', description: 'A bootstrap broker, host:port.' },
        },
      },
    },
    channels,
    operations: Object.fromEntries(
      AllTopics.flatMap((topic) => channelOperations(topic, channelIdOf(topic))),
    ),
    components: { schemas: componentSchemas() },
  };
}

/** The channel id of a topic: its key in `Topics`. */
export function channelIdOf(topic: TopicDefinition<object>): string {
  const entry = Object.entries(Topics).find(([, t]) => t.name === topic.name);
  return entry === undefined ? topic.name.replace(/[^A-Za-z0-9_-]/g, '_') : entry[0];
}

/** The message of a topic's channel, keyed by its class name. */
export function messageIdOf(topic: TopicDefinition<object>): string {
  return topic.value.name;
}

function channelOf(topic: TopicDefinition<object>): JsonSchema {
  const headers = headersOf(topic);
  const delay =
    topic.delayMs === undefined
      ? ''
      : ` Delay tier: a record is not processed before its \`${KafkaHeaders.dueAt}\`: ${formatMs(topic.delayMs)},` +
        ' plus a jitter, after it was forwarded here.';
  return {
    address: topic.name,
    title: topic.name,
    description: `${topic.description}${delay}`,
    messages: {
      [messageIdOf(topic)]: {
        name: topic.value.name,
        title: `${topic.value.name} on ${topic.name}`,
        contentType: 'application/json',
        ...(headers === undefined ? {} : { headers }),
        payload: { $ref: `${COMPONENT_SCHEMAS}${topic.value.name}` },
        bindings: { kafka: { key: keySchema(topic), bindingVersion: KAFKA_BINDING_VERSION } },
      },
    },
    bindings: {
      kafka: {
        topic: topic.name,
        partitions: topic.partitions,
        topicConfiguration: { 'retention.ms': topic.retentionMs },
        bindingVersion: KAFKA_BINDING_VERSION,
      },
    },
    ...(topic.delayMs === undefined ? {} : { 'x-ums-delay-ms': topic.delayMs }),
  };
}

/** The partition key: a field of the value when `keyOf` reads one, described by its code otherwise. */
function keySchema(topic: TopicDefinition<object>): JsonSchema {
  const source = topic.keyOf.toString().replace(/\s+/g, ' ');
  const field = /^\(?(\w+)\)? ?=> ?\1\.(\w+)$/.exec(source)?.[2];
  if (field === undefined) {
    return {
      type: 'string',
      description: `Derived from the value: \`${source}\`. Records with one key keep their order.`,
    };
  }
  const { description: _ignored, ...bounds } = valueProperty(topic, field);
  return {
    ...bounds,
    description: `The value's \`${field}\`. Records with one key keep their order.`,
  };
}

/** The record headers of a topic: delay-tier and replay headers, and CloudEvents where the topic has them. */
function headersOf(topic: TopicDefinition<object>): JsonSchema | undefined {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  if (topic.cloudEvent !== undefined) {
    const cloudEvent = cloudEventHeaders(topic);
    Object.assign(properties, cloudEvent.properties);
    required.push(...cloudEvent.required);
  }
  if (topic.delayMs !== undefined) {
    const tier = tierHeaders();
    Object.assign(properties, tier);
    required.push(...Object.keys(tier));
    if (SendRetryTiers.some((t) => t.name === topic.name)) {
      properties[KafkaHeaders.partialRetry] = {
        type: 'string',
        const: '1',
        description:
          'Set when the batch holds only the items of an earlier batch still to be sent (that batch was already counted as finished).',
      };
    }
  }
  if (topic.name !== Topics.deadLetters.name) {
    properties[KafkaHeaders.deadLetterReplay] = {
      type: 'string',
      description:
        "Set on a record an operator replayed from the dead letters: the stored dead letter's id. A replay keeps the other headers of the original record, less the delay-tier ones.",
    };
  }
  if (Object.keys(properties).length === 0) return undefined;
  return { type: 'object', ...(required.length === 0 ? {} : { required }), properties };
}

function tierHeaders(): Record<string, JsonSchema> {
  return {
    [KafkaHeaders.dueAt]: {
      type: 'string',
      pattern: '^\\d+$',
      description: 'Epoch milliseconds, in decimal, before which the record must not be processed.',
    },
    [KafkaHeaders.attempt]: {
      type: 'string',
      pattern: '^\\d+$',
      description: 'How many attempts were made before this record was written (1 on the first tier).',
    },
    [KafkaHeaders.originTopic]: {
      type: 'string',
      description: 'The topic the record was first consumed from: where a replayed dead letter goes back to.',
    },
    [KafkaHeaders.lastError]: {
      type: 'string',
      maxLength: LAST_ERROR_HEADER_CHARS,
      description: 'The error that sent the record here.',
    },
  };
}

/** The `ce_*` headers of a CloudEvents topic, and those every record has (`ce_subject` only when its field is required). */
function cloudEventHeaders(topic: TopicDefinition<object>): {
  properties: Record<string, JsonSchema>;
  required: string[];
} {
  const event = topic.cloudEvent;
  if (event === undefined) return { properties: {}, required: [] };
  const valueRequired = (classSchema(topic.value, COMPONENT_SCHEMAS)['required'] ?? []) as string[];
  const subjectAlways = event.subjectField !== undefined && valueRequired.includes(event.subjectField);
  const fieldBounds = (field: string): JsonSchema => {
    const { description: _ignored, ...bounds } = valueProperty(topic, field);
    return bounds;
  };
  const time =
    event.timeField === undefined
      ? 'when the record was published'
      : `the value's \`${event.timeField}\` (normalized to RFC 3339 if written in another ISO 8601 form)`;
  const properties: Record<string, JsonSchema> = {
    [CloudEventHeaders.id]: {
      ...fieldBounds(event.idField),
      description: `CloudEvents \`id\`: the value's \`${event.idField}\`, unique per event.`,
    },
    [CloudEventHeaders.type]: { type: 'string', const: event.type, description: 'CloudEvents `type`.' },
    [CloudEventHeaders.source]: {
      type: 'string',
      format: 'uri-reference',
      description: `CloudEvents \`source\`: the producing service, as \`${cloudEventSource('<service>')}\`.`,
    },
    [CloudEventHeaders.time]: {
      type: 'string',
      format: 'date-time',
      description: `CloudEvents \`time\`: ${time}.`,
    },
    [CloudEventHeaders.specversion]: {
      type: 'string',
      const: CLOUDEVENTS_SPEC_VERSION,
      description: 'CloudEvents `specversion`.',
    },
    ...(event.subjectField === undefined
      ? {}
      : {
          [CloudEventHeaders.subject]: {
            ...fieldBounds(event.subjectField),
            description: `CloudEvents \`subject\`: the value's \`${event.subjectField}\`${subjectAlways ? '' : ', when it has one'}.`,
          },
        }),
    [CloudEventHeaders.contentType]: {
      type: 'string',
      const: CLOUDEVENTS_CONTENT_TYPE,
      description: 'CloudEvents `datacontenttype` (binary content mode): the value is JSON.',
    },
  };
  const required = Object.keys(properties).filter(
    (name) => name !== CloudEventHeaders.subject || subjectAlways,
  );
  return { properties, required };
}

function valueProperty(topic: TopicDefinition<object>, field: string): JsonSchema {
  const properties = classSchema(topic.value, COMPONENT_SCHEMAS)['properties'] as Record<string, JsonSchema>;
  return properties[field] ?? { type: 'string' };
}

/** Each topic's value class with the topics that carry it, in contract order. */
function classesOfTopics(): Map<MessageClass<object>, TopicDefinition<object>[]> {
  const classes = new Map<MessageClass<object>, TopicDefinition<object>[]>();
  for (const topic of AllTopics) classes.set(topic.value, [...(classes.get(topic.value) ?? []), topic]);
  return classes;
}

function componentSchemas(): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  for (const cls of classesOfTopics().keys()) {
    for (const each of [cls, ...nestedMessageClasses(cls)]) {
      if (schemas[each.name] === undefined) schemas[each.name] = classSchema(each, COMPONENT_SCHEMAS);
    }
  }
  return schemas;
}

function formatMs(ms: number): string {
  if (ms % HOUR === 0) return `${ms / HOUR} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${ms / 1000} s`;
}
