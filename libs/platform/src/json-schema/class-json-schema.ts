import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import {
  ARRAY_MAX_SIZE,
  ARRAY_MIN_SIZE,
  ARRAY_UNIQUE,
  getMetadataStorage,
  IS_ARRAY,
  IS_BOOLEAN,
  IS_ENUM,
  IS_IN,
  IS_INT,
  IS_ISO31661_ALPHA_2,
  IS_ISO8601,
  IS_LENGTH,
  IS_NOT_EMPTY,
  IS_OBJECT,
  IS_STRING,
  IS_URL,
  isISO31661Alpha2,
  MATCHES,
  MAX,
  MAX_LENGTH,
  MIN,
  MIN_LENGTH,
  ValidationTypes,
} from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { targetConstructorToSchema } from 'class-validator-jsonschema';

/** A JSON Schema object as it is written out (draft-07 and 2020-12 read these keywords alike). */
export type JsonSchema = Record<string, unknown>;

/** A class whose class-validator decorators describe an input (a DTO, a Kafka message). */
export type SchemaClass = new () => object;

/**
 * What a class validates under a condition (`@ValidateIf`), as JSON Schema: the condition is a
 * function, so it is restated here. `fields` lists every conditional field (the schema is refused
 * when they differ), `allOf` when each is required, `nullable` those where null is accepted too.
 */
export interface SchemaRule {
  readonly fields: readonly string[];
  readonly allOf?: readonly JsonSchema[];
  readonly nullable?: readonly string[];
}

export interface ClassSchemaOptions {
  /** Where nested classes are: `#/components/schemas/` (OpenAPI), `#/definitions/` (a schema file). */
  readonly refPrefix: string;
  /** Unknown properties are refused (`additionalProperties: false`), as the HTTP validation pipe does. */
  readonly closed?: boolean;
  /**
   * Called for a validator without a checked conversion, or conditional fields without a rule: the
   * schema is then looser than the validator. Throws when not given.
   */
  readonly onProblem?: (problem: string) => void;
}

type SchemaOptions = NonNullable<Parameters<typeof targetConstructorToSchema>[1]>;
type Converters = NonNullable<SchemaOptions['additionalConverters']>;
type Converter = Converters[string];

const SCHEMA_RULE = 'ums:json-schema-rule';

/**
 * Validators whose conversion by class-validator-jsonschema is checked against class-validator (the
 * spec beside this file): any other validator stops the generator, so a new decorator gets its rule
 * here (or with registerValidatorSchema) instead of a silently loose schema.
 */
const CHECKED_BY_LIBRARY = new Set([
  IS_STRING,
  IS_INT,
  IS_BOOLEAN,
  IS_ENUM,
  IS_IN,
  IS_ARRAY,
  IS_OBJECT,
  IS_NOT_EMPTY,
  MIN,
  MAX,
  IS_LENGTH,
  MIN_LENGTH,
  MAX_LENGTH,
  ARRAY_MIN_SIZE,
  ARRAY_MAX_SIZE,
  ARRAY_UNIQUE,
]);
const OVERRIDDEN = new Set([IS_ISO8601, IS_URL, IS_ISO31661_ALPHA_2, MATCHES, 'isStringRecord']);

/**
 * `IsISO8601({ strict: true })` accepts many ISO 8601 forms (week dates, no zone, `24:00`); the schema
 * takes the RFC 3339 date-times among them with a zone, which every producer of ours writes
 * (`toISOString()`), and `format: date-time` checks the day of the month.
 */
const TIMESTAMP_PATTERN =
  '^[1-9]\\d{3}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])T([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(\\.\\d+)?(Z|[+-]([01]\\d|2[0-3]):[0-5]\\d)$';
/** validator.js's isURL refuses longer URLs (max_allowed_length). */
const URL_MAX_LENGTH = 2084;
/** IsStringRecord's key bound, in its validator. */
const STRING_RECORD_KEY_MAX = 64;

function kindIs(kind: string): JsonSchema {
  return { properties: { kind: { const: kind } }, required: ['kind'] };
}

/** The rules of the contracts' message classes (which cannot import this library), by class name. */
const CONTRACT_RULES: Readonly<Record<string, SchemaRule>> = {
  MessageContentV1: {
    fields: ['text'],
    allOf: [{ anyOf: [{ required: ['text'] }, { required: ['templateName'] }] }],
  },
  SendRequestV1: {
    fields: ['recipient', 'campaignName', 'audienceUrl', 'recipients'],
    allOf: [
      { if: kindIs('single'), then: { required: ['recipient'] } },
      {
        if: kindIs('bulk'),
        then: {
          required: ['campaignName'],
          anyOf: [{ required: ['audienceUrl'] }, { required: ['recipients'] }],
        },
      },
    ],
  },
  ProviderEventV1: {
    fields: ['status', 'inbound'],
    allOf: [
      { if: kindIs('status'), then: { required: ['status'] } },
      { if: kindIs('inbound'), then: { required: ['inbound'] } },
    ],
  },
};

/** Declares a class's conditional fields (see SchemaRule), next to its `@ValidateIf` decorators. */
export function JsonSchemaRule(rule: SchemaRule): ClassDecorator {
  return (target) => Reflect.defineMetadata(SCHEMA_RULE, rule, target);
}

const registered = new Map<string, Converter>();

/**
 * The JSON Schema of a custom validator (registerDecorator's `name`), given once beside it; `each`
 * makes it the schema of every item, as for class-validator's own.
 */
export function registerValidatorSchema(
  name: string,
  schema: JsonSchema | ((constraints: unknown[]) => JsonSchema),
): void {
  registered.set(
    name,
    typeof schema === 'function' ? (meta) => schema(meta.constraints as unknown[]) : schema,
  );
}

function ruleOf(cls: SchemaClass): SchemaRule | undefined {
  return (Reflect.getMetadata(SCHEMA_RULE, cls) as SchemaRule | undefined) ?? CONTRACT_RULES[cls.name];
}

/**
 * The JSON Schema of a class, from its class-validator metadata (through class-validator-jsonschema,
 * with the conversions above where it is wrong or loose). Nested classes are `$ref`s to `refPrefix` + name.
 */
export function classJsonSchema(cls: SchemaClass, options: ClassSchemaOptions): JsonSchema {
  const metadatas = metadataOf(cls);
  const report =
    options.onProblem ??
    ((problem: string): void => {
      throw new Error(problem);
    });
  for (const meta of metadatas) {
    const problem = conversionProblem(cls, meta);
    if (problem !== undefined) report(problem);
  }
  const schema = targetConstructorToSchema(cls, {
    refPointerPrefix: options.refPrefix,
    additionalConverters: converters(),
  }) as JsonSchema;
  const rule = ruleOf(cls);
  const conditional = conditionalFields(metadatas);
  const listed = [...(rule?.fields ?? [])].sort();
  if (JSON.stringify(conditional) !== JSON.stringify(listed)) {
    report(
      `${cls.name}: @ValidateIf on [${conditional.join(', ')}] but its schema rule lists [${listed.join(', ')}]` +
        ' (JsonSchemaRule, libs/platform/src/json-schema)',
    );
  }
  const properties = { ...(schema['properties'] as Record<string, JsonSchema>) };
  for (const field of Object.keys(properties)) {
    properties[field] = fixProperty(properties[field] as JsonSchema, metadatas, field);
  }
  for (const field of rule?.nullable ?? []) properties[field] = nullable(properties[field] as JsonSchema);
  return {
    title: cls.name,
    type: 'object',
    ...requiredOf(schema, metadatas),
    properties,
    ...(rule?.allOf === undefined ? {} : { allOf: rule.allOf }),
    ...(options.closed === true ? { additionalProperties: false } : {}),
  };
}

/** The classes a class nests (`@ValidateNested` with `@Type`), depth first, each once. */
export function nestedClasses(cls: SchemaClass): SchemaClass[] {
  const found: SchemaClass[] = [];
  const visit = (current: SchemaClass): void => {
    for (const meta of metadataOf(current)) {
      if (meta.type !== ValidationTypes.NESTED_VALIDATION) continue;
      const child = nestedClassOf(current, meta.propertyName);
      if (child === cls || found.includes(child)) continue;
      found.push(child);
      visit(child);
    }
  };
  visit(cls);
  return found;
}

/** The schemas of `roots` and of every class they nest, by class name. */
export function classJsonSchemas(
  roots: readonly SchemaClass[],
  options: ClassSchemaOptions,
): Map<string, JsonSchema> {
  const schemas = new Map<string, JsonSchema>();
  for (const root of roots) {
    for (const cls of [root, ...nestedClasses(root)]) {
      const known = schemas.get(cls.name);
      if (known !== undefined && known['title'] === cls.name) continue;
      schemas.set(cls.name, classJsonSchema(cls, options));
    }
  }
  return schemas;
}

function metadataOf(cls: SchemaClass): ValidationMetadata[] {
  return getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
}

/** The registered name of a validator (`isInt`, `matches`, a custom one's), if it has one. */
export function validatorName(meta: ValidationMetadata): string | undefined {
  if (meta.type !== ValidationTypes.CUSTOM_VALIDATION) return undefined;
  return getMetadataStorage().getTargetValidatorConstraints(meta.constraintCls)[0]?.name;
}

/** Why a validator's rule is not (exactly) in the schema, or undefined when it is. */
function conversionProblem(cls: SchemaClass, meta: ValidationMetadata): string | undefined {
  if (
    meta.type === ValidationTypes.CONDITIONAL_VALIDATION ||
    meta.type === ValidationTypes.NESTED_VALIDATION ||
    meta.type === ValidationTypes.IS_DEFINED
  ) {
    return undefined;
  }
  const name = validatorName(meta);
  if (name !== undefined && (CHECKED_BY_LIBRARY.has(name) || OVERRIDDEN.has(name) || registered.has(name))) {
    if (name === MATCHES && (meta.constraints[0] as RegExp).flags.replace('u', '') !== '') {
      return `${cls.name}.${meta.propertyName}: a Matches pattern with flags has no JSON Schema form`;
    }
    return undefined;
  }
  return (
    `${cls.name}.${meta.propertyName}: no checked JSON Schema rule for ${name ?? meta.type}` +
    ' (libs/platform/src/json-schema/class-json-schema.ts, or registerValidatorSchema beside the validator)'
  );
}

/**
 * What lodash's merge of the library loses: `integer` when a Min or Max came after IsInt, and every
 * pattern but the last of a field with several (the others go to `allOf`).
 */
function fixProperty(
  schema: JsonSchema,
  metadatas: readonly ValidationMetadata[],
  field: string,
): JsonSchema {
  const own = metadatas.filter((m) => m.propertyName === field);
  const fixed: JsonSchema = { ...schema };
  const target = (each: boolean): JsonSchema =>
    each && typeof fixed['items'] === 'object'
      ? (fixed['items'] = { ...(fixed['items'] as JsonSchema) })
      : fixed;
  for (const meta of own) {
    if (validatorName(meta) === IS_INT) target(meta.each === true)['type'] = 'integer';
  }
  const patterns = own.flatMap((meta) => {
    const name = validatorName(meta);
    if (name === MATCHES)
      return [{ each: meta.each === true, pattern: (meta.constraints[0] as RegExp).source }];
    return name === IS_ISO8601 ? [{ each: meta.each === true, pattern: TIMESTAMP_PATTERN }] : [];
  });
  for (const { each, pattern } of patterns) {
    const at = target(each);
    if (at['pattern'] === pattern) continue;
    const allOf = (at['allOf'] as JsonSchema[] | undefined) ?? [];
    if (!allOf.some((s) => s['pattern'] === pattern)) at['allOf'] = [...allOf, { pattern }];
  }
  return fixed;
}

/**
 * The required fields as the library finds them, but for those validated by `@ValidateNested` alone:
 * class-validator skips the nested validation of a missing value, so they may be absent.
 */
function requiredOf(schema: JsonSchema, metadatas: readonly ValidationMetadata[]): JsonSchema {
  const others = new Set(
    metadatas.filter((m) => m.type !== ValidationTypes.NESTED_VALIDATION).map((m) => m.propertyName),
  );
  const required = ((schema['required'] ?? []) as string[]).filter((field) => others.has(field));
  return required.length === 0 ? {} : { required };
}

/** Properties under `@ValidateIf` (not `@IsOptional`, which class-validator names), sorted. */
function conditionalFields(metadatas: readonly ValidationMetadata[]): string[] {
  const fields = metadatas
    .filter((m) => m.type === ValidationTypes.CONDITIONAL_VALIDATION && m.name === undefined)
    .map((m) => m.propertyName);
  return [...new Set(fields)].sort();
}

/** The schema accepting null as well. */
function nullable(schema: JsonSchema | undefined): JsonSchema {
  if (schema === undefined)
    throw new Error('A nullable field of a schema rule is not a property of the class');
  const type = schema['type'];
  if (typeof type === 'string') return { ...schema, type: [type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

/** What class-transformer builds under a nested property: the class `@Type` names. */
function nestedClassOf(cls: SchemaClass, property: string): SchemaClass {
  const built = (plainToInstance(cls, { [property]: {} }) as Record<string, unknown>)[property];
  const sample = Array.isArray(built) ? undefined : built;
  const ctor = (sample as object | undefined)?.constructor as SchemaClass | undefined;
  if (ctor !== undefined && ctor !== Object) return ctor;
  const listed = (plainToInstance(cls, { [property]: [{}] }) as Record<string, unknown>)[property];
  const item = Array.isArray(listed) ? (listed[0] as object | undefined) : undefined;
  const itemCtor = item?.constructor as SchemaClass | undefined;
  if (itemCtor === undefined || itemCtor === Object) {
    throw new Error(`${cls.name}.${property}: @ValidateNested without @Type has no schema`);
  }
  return itemCtor;
}

function converters(): Converters {
  return {
    ...Object.fromEntries(registered),
    [ValidationTypes.NESTED_VALIDATION]: (meta, options) => ({
      $ref: `${options.refPointerPrefix}${nestedClassOf(meta.target as SchemaClass, meta.propertyName).name}`,
    }),
    // Whether a field must be present is `required` (or a conditional rule), not a schema of its value.
    [ValidationTypes.IS_DEFINED]: {},
    [IS_ISO8601]: {
      type: 'string',
      format: 'date-time',
      pattern: TIMESTAMP_PATTERN,
      description: 'RFC 3339 date-time with a zone; the platform writes UTC, e.g. 2026-11-24T10:00:00.000Z.',
    },
    [IS_URL]: (meta) => {
      const protocols = (
        (meta.constraints[0] as { protocols?: string[] } | undefined)?.protocols ?? ['http', 'https']
      ).sort();
      return {
        type: 'string',
        format: 'uri',
        maxLength: URL_MAX_LENGTH,
        pattern: `^(${protocols.join('|')})://`,
      };
    },
    [IS_ISO31661_ALPHA_2]: { type: 'string', enum: countryCodes() },
    [MATCHES]: (meta) => ({ type: 'string', pattern: (meta.constraints[0] as RegExp).source }),
    isStringRecord: (meta) => {
      const [maxKeys, maxValueLength] = meta.constraints as [number, number];
      return {
        type: 'object',
        maxProperties: maxKeys,
        propertyNames: { minLength: 1, maxLength: STRING_RECORD_KEY_MAX },
        additionalProperties: { type: 'string', maxLength: maxValueLength },
        description:
          `At most ${maxKeys} string values of at most ${maxValueLength} characters, keys of 1-${STRING_RECORD_KEY_MAX}` +
          ' (counted in UTF-16 code units: a character outside the Basic Multilingual Plane counts twice).',
      };
    },
  };
}

let countries: string[] | undefined;

/** ISO 3166-1 alpha-2 codes as class-validator knows them: every two capital letters it accepts. */
function countryCodes(): string[] {
  if (countries !== undefined) return countries;
  const codes: string[] = [];
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b);
      if (isISO31661Alpha2(code)) codes.push(code);
    }
  }
  countries = codes;
  return codes;
}
