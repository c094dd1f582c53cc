import 'reflect-metadata';
import type { MessageClass } from '@ums/contracts';
import { classJsonSchema, type JsonSchema, nestedClasses } from '@ums/platform';
import { getMetadataStorage, ValidationTypes } from 'class-validator';

export type { JsonSchema };

export const JSON_SCHEMA_DRAFT = 'http://json-schema.org/draft-07/schema#';

/**
 * The JSON Schema (draft-07) of a message class, from its class-validator metadata (the platform's
 * class-json-schema: class-validator-jsonschema with its conversions and the contracts' `@ValidateIf`
 * rules). Nested classes are `$ref`s to `refPrefix` + name. A property validated by `@ValidateNested`
 * alone is optional: class-validator skips nested validation of a missing value.
 */
export function classSchema(cls: MessageClass<object>, refPrefix: string): JsonSchema {
  const schema = classJsonSchema(cls, { refPrefix });
  const optional = nestedAlone(cls);
  const required = ((schema['required'] ?? []) as string[]).filter((field) => !optional.has(field));
  return Object.fromEntries(
    Object.entries(schema).flatMap(([key, value]): [string, unknown][] => {
      if (key !== 'required') return [[key, value]];
      return required.length === 0 ? [] : [[key, required]];
    }),
  );
}

/** The classes a message class nests (`@ValidateNested` with `@Type`), depth first, each once. */
export function nestedMessageClasses(cls: MessageClass<object>): MessageClass<object>[] {
  return nestedClasses(cls) as MessageClass<object>[];
}

/** Where a message class's JSON Schema file is, relative to docs/asyncapi. */
export function schemaFileOf(cls: MessageClass<object>): string {
  return `schemas/${cls.name}.schema.json`;
}

/** A self-contained schema file for one message class: nested classes under `definitions`. */
export function messageSchemaFile(cls: MessageClass<object>, description: string): JsonSchema {
  const definitions: Record<string, JsonSchema> = {};
  for (const child of nestedMessageClasses(cls))
    definitions[child.name] = classSchema(child, '#/definitions/');
  const { title, ...rest } = classSchema(cls, '#/definitions/');
  return {
    $schema: JSON_SCHEMA_DRAFT,
    title,
    description,
    ...rest,
    ...(Object.keys(definitions).length === 0 ? {} : { definitions }),
  };
}

/** Properties whose only validation is `@ValidateNested` (no `@IsDefined`, no other validator). */
function nestedAlone(cls: MessageClass<object>): Set<string> {
  const metadatas = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  const others = new Set(
    metadatas.filter((m) => m.type !== ValidationTypes.NESTED_VALIDATION).map((m) => m.propertyName),
  );
  return new Set(
    metadatas
      .filter((m) => m.type === ValidationTypes.NESTED_VALIDATION && !others.has(m.propertyName))
      .map((m) => m.propertyName),
  );
}
