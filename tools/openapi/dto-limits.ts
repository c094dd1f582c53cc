import { type JsonSchema, type SchemaClass, validatorName } from '@ums/platform';
import { getMetadataStorage } from 'class-validator';

type Rule = (at: JsonSchema, property: JsonSchema, constraints: readonly unknown[]) => boolean;

const hasType = (at: JsonSchema, type: string): boolean =>
  at['type'] === type || (Array.isArray(at['type']) && (at['type'] as unknown[]).includes(type));

const sameSet = (a: unknown, b: readonly unknown[]): boolean =>
  Array.isArray(a) && JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

const patterns = (at: JsonSchema): unknown[] => [
  at['pattern'],
  ...((at['allOf'] as JsonSchema[] | undefined) ?? []).map((s) => s['pattern']),
];

/**
 * What each limiting validator must leave in the schema of its property (of its items with `each`; the
 * array keywords on the property itself).
 */
const RULES: Readonly<Record<string, Rule>> = {
  maxLength: (at, _p, [max]) => at['maxLength'] === max,
  minLength: (at, _p, [min]) => at['minLength'] === min,
  isLength: (at, _p, [min, max]) => at['minLength'] === min && (max === undefined || at['maxLength'] === max),
  isNotEmpty: (at) => typeof at['minLength'] === 'number' && at['minLength'] >= 1,
  max: (at, _p, [max]) => at['maximum'] === max,
  min: (at, _p, [min]) => at['minimum'] === min,
  arrayMaxSize: (_a, property, [max]) => property['maxItems'] === max,
  arrayMinSize: (_a, property, [min]) => property['minItems'] === min,
  arrayUnique: (_a, property) => property['uniqueItems'] === true,
  isIn: (at, _p, [values]) => sameSet(at['enum'], values as unknown[]),
  isEnum: (at, _p, [values]) => sameSet(at['enum'], Object.values(values as object)),
  matches: (at, _p, [pattern]) => patterns(at).includes((pattern as RegExp).source),
  isInt: (at) => hasType(at, 'integer'),
  isString: (at) => hasType(at, 'string'),
  isBoolean: (at) => hasType(at, 'boolean'),
};

/** The schema without its `null` alternative (a nullable property). */
function nonNull(schema: JsonSchema | undefined): JsonSchema | undefined {
  const anyOf = schema?.['anyOf'] as JsonSchema[] | undefined;
  return anyOf?.find((s) => s['type'] !== 'null') ?? schema;
}

/**
 * Each limit of a class's validators (a length, a bound, an enum, a pattern, a type) that the schema
 * describing it lacks: `properties` are the schemas of its fields, as a document shows them (a body's
 * component schema, or a query's or a path's parameters).
 */
export function missingLimits(cls: SchemaClass, properties: Readonly<Record<string, JsonSchema>>): string[] {
  const missing: string[] = [];
  for (const meta of getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false)) {
    const name = validatorName(meta);
    const rule = name === undefined ? undefined : RULES[name];
    if (rule === undefined) continue;
    const property = nonNull(properties[meta.propertyName]);
    const at = meta.each === true ? nonNull(property?.['items'] as JsonSchema | undefined) : property;
    if (property === undefined || at === undefined || !rule(at, property, meta.constraints as unknown[])) {
      missing.push(`${cls.name}.${meta.propertyName}: ${name} ${JSON.stringify(meta.constraints ?? [])}`);
    }
  }
  return missing;
}
