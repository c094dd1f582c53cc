// A producer and a consumer written as a team outside this repository would write them: what they send
// and read is named only by the published JSON Schema (docs/asyncapi/schemas) and the CloudEvents
// headers. Nothing here imports the project; schema-only-client.e2e-spec.ts checks that it stays so.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { CloudEvent, Kafka as CloudEventsKafka, type KafkaMessage } from 'cloudevents';
import { type IHeaders, Kafka, logLevel } from 'kafkajs';

export interface SchemaOnlyOptions {
  readonly brokers: readonly string[];
  /** A JSON Schema file of docs/asyncapi/schemas. */
  readonly schemaFile: string;
}

/** A status event as a CloudEvents consumer sees it: the attributes from the headers, the data checked. */
export interface ReadEvent {
  readonly id: string;
  readonly type: string;
  readonly source: string;
  readonly subject: string | undefined;
  readonly time: string | undefined;
  readonly data: Record<string, unknown>;
}

/** The `campaignId` of a single send's status events, as the status schema's description derives it. */
export function singleSendCampaignId(tenantId: string, requestId: string): string {
  return `snd_${createHash('sha256').update(`${tenantId}\u0000${requestId}`).digest('base64url').slice(0, 40)}`;
}

/** A validator of one schema file; throws with every violation listed. */
export function schemaValidator(schemaFile: string): (value: unknown) => void {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const validate: ValidateFunction = ajv.compile(JSON.parse(readFileSync(schemaFile, 'utf8')) as object);
  return (value) => {
    if (!validate(value))
      throw new Error(`not valid against ${schemaFile}: ${ajv.errorsText(validate.errors)}`);
  };
}

/** Checks the value against its schema, then publishes it with acks from all in-sync replicas. */
export async function publishValid(
  options: SchemaOnlyOptions & { readonly topic: string; readonly key: string; readonly value: unknown },
): Promise<void> {
  schemaValidator(options.schemaFile)(options.value);
  const producer = new Kafka({ brokers: [...options.brokers], logLevel: logLevel.NOTHING }).producer();
  await producer.connect();
  try {
    await producer.send({
      topic: options.topic,
      acks: -1,
      messages: [{ key: options.key, value: JSON.stringify(options.value) }],
    });
  } finally {
    await producer.disconnect();
  }
}

/**
 * Reads a topic from its start as CloudEvents until `done` says it has what it waits for: each record
 * through the CloudEvents SDK's Kafka binding, its data against the schema.
 */
export async function readCloudEvents(
  options: SchemaOnlyOptions & {
    readonly topic: string;
    readonly groupId: string;
    readonly done: (events: readonly ReadEvent[]) => boolean;
    readonly timeoutMs: number;
  },
): Promise<ReadEvent[]> {
  const check = schemaValidator(options.schemaFile);
  const events: ReadEvent[] = [];
  const consumer = new Kafka({ brokers: [...options.brokers], logLevel: logLevel.NOTHING }).consumer({
    groupId: options.groupId,
  });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: options.topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `still waiting after ${options.timeoutMs} ms, having read ${JSON.stringify(events.map((e) => e.data))}`,
            ),
          ),
        options.timeoutMs,
      );
      consumer
        .run({
          eachMessage: async ({ message }) => {
            events.push(toReadEvent(message.key, message.value, message.headers ?? {}, check));
            if (options.done(events)) {
              clearTimeout(timer);
              resolve();
            }
            await Promise.resolve();
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
  return events;
}

function toReadEvent(
  key: Buffer | null,
  value: Buffer | null,
  headers: IHeaders,
  check: (value: unknown) => void,
): ReadEvent {
  const text = value?.toString('utf8') ?? '';
  const stringHeaders: Record<string, string> = {};
  for (const [name, header] of Object.entries(headers)) {
    if (header !== undefined) stringHeaders[name] = String(Array.isArray(header) ? header[0] : header);
  }
  const message: KafkaMessage<string> = {
    key: key?.toString('utf8') ?? '',
    value: text,
    headers: stringHeaders,
    body: text,
  };
  const event = CloudEventsKafka.toEvent<Record<string, unknown>>(message);
  if (!(event instanceof CloudEvent)) throw new Error('a record must hold one CloudEvent');
  event.validate();
  const data = event.data ?? {};
  check(data);
  return {
    id: event.id,
    type: event.type,
    source: event.source,
    subject: event.subject,
    time: event.time,
    data,
  };
}
