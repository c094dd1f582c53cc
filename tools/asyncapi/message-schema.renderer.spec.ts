import 'reflect-metadata';
import {
  AllTopics,
  Channel,
  decodeMessage,
  type MessageClass,
  MessageBatchV1,
  MessageStatusV1,
  ProviderEventV1,
  SendRequestV1,
  WebhookDeliveryV1,
  DeadLetterV1,
  InboundMessageV1,
} from '@ums/contracts';
import { hostileRecords } from '@ums/testing';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { IsISO8601, IsString, IsUUID, ValidateIf } from 'class-validator';
// The contracts' own valid samples of each message class (not exported by the library).
// eslint-disable-next-line @nx/enforce-module-boundaries
import { validMessages } from '../../libs/contracts/src/validation/test/valid-messages.fixture';
import { classSchema, type JsonSchema, messageSchemaFile } from './message-schema.renderer';

const classes = [...new Set(AllTopics.map((t) => t.value))];
const ajv = addFormats(new Ajv({ allErrors: true, strict: true, strictTypes: false, strictRequired: false }));
const validators = new Map<string, ValidateFunction>(
  classes.map((cls) => [cls.name, ajv.compile(messageSchemaFile(cls, cls.name))]),
);

function schemaAccepts(cls: MessageClass<object>, value: unknown): boolean {
  const validate = validators.get(cls.name);
  if (validate === undefined) throw new Error(`no schema for ${cls.name}`);
  return validate(value);
}

function decoderAccepts(cls: MessageClass<object>, value: unknown): boolean {
  return decodeMessage(cls, JSON.stringify(value)).ok;
}

function sample(cls: MessageClass<object>, index = 0): Record<string, unknown> {
  return structuredClone(validMessages[cls.name]?.[index]) as Record<string, unknown>;
}

const single = (): Record<string, unknown> => sample(SendRequestV1, 0);
const bulk = (): Record<string, unknown> => sample(SendRequestV1, 1);
const long = (n: number): string => 'x'.repeat(n);
const without = (value: Record<string, unknown>, field: string): Record<string, unknown> => {
  const copy = { ...value };
  delete copy[field];
  return copy;
};
const record = (entries: number, valueLength = 1): Record<string, string> =>
  Object.fromEntries(Array.from({ length: entries }, (_, i) => [`k${i}`, long(valueLength)]));

/** Values both the decoder and the schema must refuse: limits, enums, required and conditional fields. */
const invalid: readonly { label: string; cls: MessageClass<object>; value: unknown }[] = [
  { label: 'tenantId over 64', cls: SendRequestV1, value: { ...single(), tenantId: long(65) } },
  { label: 'empty requestId', cls: SendRequestV1, value: { ...single(), requestId: '' } },
  { label: 'unknown channel', cls: SendRequestV1, value: { ...single(), channel: 'fax' } },
  { label: 'unknown kind', cls: SendRequestV1, value: { ...single(), kind: 'batch' } },
  { label: 'no content', cls: SendRequestV1, value: without(single(), 'content') },
  { label: 'content without text or template', cls: SendRequestV1, value: { ...single(), content: {} } },
  { label: 'text over 4096', cls: SendRequestV1, value: { ...single(), content: { text: long(4097) } } },
  { label: 'single without recipient', cls: SendRequestV1, value: without(single(), 'recipient') },
  {
    label: 'address over 320',
    cls: SendRequestV1,
    value: { ...single(), recipient: { address: long(321) } },
  },
  {
    label: '51 variables',
    cls: SendRequestV1,
    value: { ...single(), recipient: { address: '+1', variables: record(51) } },
  },
  {
    label: 'variable over 1024',
    cls: SendRequestV1,
    value: { ...single(), recipient: { address: '+1', variables: record(1, 1025) } },
  },
  {
    label: 'variable not a string',
    cls: SendRequestV1,
    value: { ...single(), recipient: { address: '+1', variables: { n: 5 } } },
  },
  {
    label: 'variable name over 64',
    cls: SendRequestV1,
    value: { ...single(), recipient: { address: '+1', variables: { [long(65)]: 'x' } } },
  },
  { label: 'bulk without campaignName', cls: SendRequestV1, value: without(bulk(), 'campaignName') },
  { label: 'bulk without audience', cls: SendRequestV1, value: without(bulk(), 'recipients') },
  { label: 'no recipients', cls: SendRequestV1, value: { ...bulk(), recipients: [] } },
  {
    label: '10,001 recipients',
    cls: SendRequestV1,
    value: { ...bulk(), recipients: Array.from({ length: 10_001 }, () => ({ address: '+1' })) },
  },
  {
    label: 'ftp audience URL',
    cls: SendRequestV1,
    value: { ...without(bulk(), 'recipients'), audienceUrl: 'ftp://example.com/a.csv' },
  },
  { label: 'unknown country', cls: SendRequestV1, value: { ...bulk(), defaultCountry: 'XX' } },
  { label: '51 template parameters', cls: SendRequestV1, value: { ...bulk(), content: tpl(51) } },
  {
    label: 'February 30',
    cls: SendRequestV1,
    value: { ...single(), requestedAt: '2026-02-30T00:00:00.000Z' },
  },
  { label: 'a date without time', cls: SendRequestV1, value: { ...single(), requestedAt: 'tomorrow' } },
  { label: 'no requestedAt', cls: SendRequestV1, value: without(single(), 'requestedAt') },
  {
    label: 'messageId not decimal',
    cls: MessageStatusV1,
    value: { ...sample(MessageStatusV1), messageId: 'm1' },
  },
  { label: 'unknown status', cls: MessageStatusV1, value: { ...sample(MessageStatusV1), status: 'DONE' } },
  { label: 'unknown reason', cls: MessageStatusV1, value: { ...sample(MessageStatusV1), reason: 'because' } },
  { label: 'no eventId', cls: MessageStatusV1, value: without(sample(MessageStatusV1), 'eventId') },
  {
    label: 'errorText over 1024',
    cls: MessageStatusV1,
    value: { ...sample(MessageStatusV1), errorText: long(1025) },
  },
  { label: 'no items', cls: MessageBatchV1, value: { ...sample(MessageBatchV1), items: [] } },
  {
    label: '1,001 items',
    cls: MessageBatchV1,
    value: {
      ...sample(MessageBatchV1),
      items: Array.from({ length: 1001 }, (_, i) => ({ messageId: String(i), recipient: '+1' })),
    },
  },
  { label: 'negative seq', cls: MessageBatchV1, value: { ...sample(MessageBatchV1), seq: -1 } },
  { label: 'fractional seq', cls: MessageBatchV1, value: { ...sample(MessageBatchV1), seq: 1.5 } },
  { label: 'unknown lane', cls: MessageBatchV1, value: { ...sample(MessageBatchV1), lane: 'fast' } },
  {
    label: 'payload not an object',
    cls: WebhookDeliveryV1,
    value: { ...sample(WebhookDeliveryV1), payload: '[1]' },
  },
  { label: 'attempt 101', cls: WebhookDeliveryV1, value: { ...sample(WebhookDeliveryV1), attempt: 101 } },
  { label: 'unknown encoding', cls: DeadLetterV1, value: { ...sample(DeadLetterV1), valueEncoding: 'hex' } },
  { label: '65 headers', cls: DeadLetterV1, value: { ...sample(DeadLetterV1), headers: record(65) } },
  {
    label: 'status event without status',
    cls: ProviderEventV1,
    value: without(sample(ProviderEventV1), 'status'),
  },
  {
    label: 'inbound event without inbound',
    cls: ProviderEventV1,
    value: without(sample(ProviderEventV1, 1), 'inbound'),
  },
  {
    label: 'optOut not boolean',
    cls: InboundMessageV1,
    value: { ...sample(InboundMessageV1), optOut: 'yes' },
  },
  // The hostile records' values that are JSON: refused by every topic's schema.
  ...hostileRecords({ oversizedBytes: 16 }).flatMap((hostile) =>
    jsonOf(hostile.value) === undefined
      ? []
      : classes.map((cls) => ({ label: `hostile ${hostile.label}`, cls, value: jsonOf(hostile.value) })),
  ),
];

function tpl(parameters: number): object {
  return { templateName: 'welcome', templateParameters: Array.from({ length: parameters }, () => 'p') };
}

function jsonOf(raw: Buffer | string | null): unknown {
  if (raw === null) return undefined;
  try {
    return JSON.parse(raw.toString()) as unknown;
  } catch {
    return undefined;
  }
}

describe('message JSON Schemas', () => {
  it('accept every valid record of every topic class', () => {
    for (const cls of classes) {
      const records = validMessages[cls.name] ?? [];
      expect({ cls: cls.name, records: records.length > 0 }).toEqual({ cls: cls.name, records: true });
      for (const value of records) {
        expect({ cls: cls.name, value, decoder: decoderAccepts(cls, value) }).toMatchObject({
          decoder: true,
        });
        expect({
          cls: cls.name,
          value,
          errors: (schemaAccepts(cls, value), validators.get(cls.name)?.errors),
        }).toMatchObject({ errors: null });
      }
    }
  });

  it('refuse what the decoder refuses: limits, enums, required and conditional fields', () => {
    expect(invalid.length).toBeGreaterThan(40);
    for (const { label, cls, value } of invalid) {
      expect({ label, decoder: decoderAccepts(cls, value), schema: schemaAccepts(cls, value) }).toEqual({
        label,
        decoder: false,
        schema: false,
      });
    }
  });

  it('never accept what the decoder refuses, over every one-field change of the valid records', () => {
    let compared = 0;
    let refused = 0;
    const looser: string[] = [];
    const stricter: string[] = [];
    for (const cls of classes) {
      for (const value of validMessages[cls.name] ?? []) {
        for (const [path, variant] of variants(value, rootSchema(cls), rootSchema(cls), '')) {
          const decoder = decoderAccepts(cls, variant);
          const schema = schemaAccepts(cls, variant);
          compared++;
          if (!decoder) refused++;
          if (schema && !decoder)
            looser.push(`${cls.name} ${path}: ${JSON.stringify(variant).slice(0, 200)}`);
          if (decoder && !schema) stricter.push(`${cls.name} ${path}`);
        }
      }
    }
    expect(looser).toEqual([]);
    expect(stricter.filter((s) => !TOLERATED.some((t) => t.test(s)))).toEqual([]);
    expect(compared).toBeGreaterThan(2_000);
    expect(refused).toBeGreaterThan(1_000);
  });
});

describe('classSchema', () => {
  it('refuses a validator without a checked rule, and a @ValidateIf it has no rule for', () => {
    class WithUuid {
      @IsUUID()
      id!: string;
    }
    class WithCondition {
      @IsString()
      kind!: string;
      @ValidateIf((o: WithCondition) => o.kind === 'a')
      @IsISO8601({ strict: true })
      at?: string;
    }
    expect(() => classSchema(WithUuid, '#/')).toThrow(/WithUuid\.id: no checked JSON Schema rule for isUuid/);
    expect(() => classSchema(WithCondition, '#/')).toThrow(/WithCondition: @ValidateIf on \[at\]/);
  });

  it('gives the channel enum and the required fields of a status event', () => {
    const schema = classSchema(MessageStatusV1, '#/');
    expect((schema['properties'] as Record<string, JsonSchema>)['channel']).toMatchObject({
      type: 'string',
      enum: Object.values(Channel),
    });
    expect(schema['required']).toEqual(
      expect.arrayContaining(['eventId', 'messageId', 'tenantId', 'status', 'occurredAt']),
    );
    expect(schema['required']).not.toContain('runId');
  });
});

/**
 * Where the schema refuses what the decoder lets through (never the other way), on purpose: null in an
 * optional field (the decoder's IsOptional takes it; the schema says leave the field out), and ISO 8601
 * forms other than RFC 3339 date-times with a zone.
 */
const TOLERATED: readonly RegExp[] = [/ null$/, / iso$/];

function rootSchema(cls: MessageClass<object>): JsonSchema {
  return messageSchemaFile(cls, cls.name);
}

function resolve(schema: JsonSchema, root: JsonSchema): JsonSchema {
  const ref = schema['$ref'];
  if (typeof ref !== 'string') return schema;
  const name = ref.replace('#/definitions/', '');
  return (root['definitions'] as Record<string, JsonSchema>)[name] ?? {};
}

/**
 * Every value reached by changing one field of a sample: removed, null, of another type, at and just
 * past each bound the schema states, out of its enum, or an ISO 8601 form the schema does not take.
 * Each comes with a label: the field's path and what was changed.
 */
function* variants(
  value: unknown,
  schemaIn: JsonSchema,
  root: JsonSchema,
  path: string,
): Generator<[string, unknown]> {
  const schema = resolve(schemaIn, root);
  if (Array.isArray(value)) {
    const items = (schema['items'] ?? {}) as JsonSchema;
    for (let i = 0; i < value.length; i++) {
      for (const [p, inner] of variants(value[i], items, root, `${path}[${i}]`)) {
        yield [p, value.map((v: unknown, j) => (j === i ? inner : v))];
      }
    }
    yield* bounds(value, schema, path);
    return;
  }
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    const properties = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
    for (const [key, child] of Object.entries(object)) {
      const childSchema = properties[key] ?? { additionalProperties: schema['additionalProperties'] };
      const field = path === '' ? key : `${path}.${key}`;
      for (const [p, inner] of variants(child, childSchema, root, field)) {
        yield [p, { ...object, [key]: inner }];
      }
      yield [`${field} removed`, without(object, key)];
      yield [`${field} null`, { ...object, [key]: null }];
    }
    yield* bounds(object, schema, path);
    return;
  }
  for (const other of [5, 1.5, -1, true, 'x', '', {}, []]) yield [`${path} type`, other];
  yield* bounds(value, schema, path);
}

function* bounds(value: unknown, schema: JsonSchema, path: string): Generator<[string, unknown]> {
  const n = (key: string): number | undefined => schema[key] as number | undefined;
  if (typeof value === 'string') {
    for (const length of [n('minLength'), n('maxLength')].filter((l) => l !== undefined)) {
      for (const l of [length - 1, length, length + 1]) if (l >= 0) yield [`${path} length`, 'x'.repeat(l)];
    }
    if (schema['enum'] !== undefined) yield [`${path} enum`, `${value}-not`];
    if (schema['format'] === 'date-time') {
      for (const iso of [
        '2026-11-24',
        '2026-11-24T10:00:00',
        '2026-W48-2',
        '2026-11-24T10:00Z',
        '2026-11-24 10:00:00Z',
      ])
        yield [`${path} iso`, iso];
      for (const bad of ['2026-02-29T00:00:00.000Z', '2026-04-31T10:00:00Z', '2026-11-24T24:00:00Z'])
        yield [`${path} date`, bad];
    }
  }
  if (typeof value === 'number') {
    for (const limit of [n('minimum'), n('maximum')].filter((l) => l !== undefined)) {
      for (const v of [limit - 1, limit, limit + 1]) yield [`${path} bound`, v];
    }
  }
  if (Array.isArray(value) && value.length > 0) {
    for (const size of [n('minItems'), n('maxItems')].filter((s) => s !== undefined)) {
      for (const s of [size - 1, size, size + 1]) {
        if (s >= 0) yield [`${path} size`, Array.from({ length: s }, () => value[0] as unknown)];
      }
    }
  }
  if (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    n('maxProperties') !== undefined
  ) {
    const max = n('maxProperties') ?? 0;
    for (const count of [max, max + 1]) yield [`${path} entries`, record(count)];
    yield [`${path} key`, { [long(65)]: 'x' }];
    yield [`${path} key`, { '': 'x' }];
  }
}
