/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1) as it is written out. */
export type ViewJsonSchema = Readonly<Record<string, unknown>>;

/**
 * The JSON Schema of an answer of the HTTP API (a view of this folder), with an example. The schema
 * lists exactly the view's fields (`viewSchema` is typed so), the example is typed as the view, and a
 * test validates each example against its schema: the three cannot drift apart unnoticed.
 */
export interface ViewSchema<T = unknown> {
  /** The schema's name in an OpenAPI document (`#/components/schemas/<name>`). */
  readonly name: string;
  readonly schema: ViewJsonSchema;
  readonly example: T;
  /** The views this one refers to by `$ref`. */
  readonly uses: readonly ViewSchema[];
}

/** The keys of T that may be absent. */
type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];

export interface ViewDefinition<T> {
  readonly description: string;
  /** One schema per field of T, no more and no fewer. */
  readonly properties: { readonly [K in keyof T]-?: ViewJsonSchema };
  /** The fields that may be absent (all others are required). */
  readonly optional?: readonly OptionalKeys<T>[];
  readonly example: T;
  readonly uses?: readonly ViewSchema[];
}

export function viewSchema<T>(name: string, definition: ViewDefinition<T>): ViewSchema<T> {
  const optional = new Set<PropertyKey>(definition.optional ?? []);
  return {
    name,
    schema: {
      type: 'object',
      description: definition.description,
      required: Object.keys(definition.properties).filter((key) => !optional.has(key)),
      properties: definition.properties,
    },
    example: definition.example,
    uses: definition.uses ?? [],
  };
}

/** A reference to another view's schema. */
export function viewRef(view: ViewSchema): ViewJsonSchema {
  return { $ref: `#/components/schemas/${view.name}` };
}

export const STRING: ViewJsonSchema = { type: 'string' };
export const INTEGER: ViewJsonSchema = { type: 'integer' };
export const BOOLEAN: ViewJsonSchema = { type: 'boolean' };
/** A BIGINT id: a decimal string, never a JSON number. */
export const DECIMAL_ID: ViewJsonSchema = { type: 'string', pattern: '^\\d{1,20}$' };
export const DATE_TIME: ViewJsonSchema = { type: 'string', format: 'date-time' };

/** The schema, or null. */
export function orNull(schema: ViewJsonSchema): ViewJsonSchema {
  const type = schema['type'];
  return typeof type === 'string'
    ? { ...schema, type: [type, 'null'] }
    : { anyOf: [schema, { type: 'null' }] };
}

export function arrayOf(items: ViewJsonSchema): ViewJsonSchema {
  return { type: 'array', items };
}

export function oneOfValues(values: readonly string[]): ViewJsonSchema {
  return { type: 'string', enum: values };
}

/** The values of a string union, each named once (a value added to the union must be added here). */
export function unionValues<T extends string>(values: Readonly<Record<T, true>>): ViewJsonSchema {
  return oneOfValues(Object.keys(values));
}

export function described(schema: ViewJsonSchema, description: string): ViewJsonSchema {
  return { ...schema, description };
}
