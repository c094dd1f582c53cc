import type { OpenAPIObject, OperationObject, ResponseObject } from '@nestjs/swagger';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const DOCUMENT_ID = 'https://ums.invalid/openapi.json';

interface MediaType {
  readonly schema?: unknown;
  readonly example?: unknown;
  readonly examples?: Readonly<Record<string, { readonly value?: unknown }>>;
}

/** Each operation of a document, named `METHOD /path`. */
export function operations(document: OpenAPIObject): [string, OperationObject][] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const operation = item[method];
      return operation === undefined
        ? []
        : [[`${method.toUpperCase()} ${path}`, operation] as [string, OperationObject]];
    }),
  );
}

/** The media types of a request body or an answer (none for a `$ref` or nothing). */
function mediaTypes(container: unknown): MediaType[] {
  const content = (container as { readonly content?: Readonly<Record<string, MediaType>> } | undefined)
    ?.content;
  return Object.values(content ?? {});
}

/** An answer of an operation, its `$ref` to the document's shared answers followed. */
export function resolveResponse(document: OpenAPIObject, response: unknown): ResponseObject | undefined {
  const ref = (response as { $ref?: string } | undefined)?.$ref;
  if (ref === undefined) return response as ResponseObject | undefined;
  const name = ref.replace('#/components/responses/', '');
  return document.components?.responses?.[name] as ResponseObject | undefined;
}

/** The answers of an operation by status, shared ones resolved. */
export function responsesOf(document: OpenAPIObject, operation: OperationObject): [string, ResponseObject][] {
  return Object.entries(operation.responses).map(([status, response]) => [
    status,
    resolveResponse(document, response) ?? { description: 'unresolved $ref' },
  ]);
}

function hasExample(media: MediaType): boolean {
  return media.example !== undefined || Object.keys(media.examples ?? {}).length > 0;
}

/**
 * What every operation must show: its scope (a bearer requirement naming it, and the description
 * saying it), or why any credential will do (a bearer requirement without scope) or why it is public,
 * a success answer with a schema and an example (204 has no body), an example of its request body, and
 * at least one error answer, each with its codes' examples.
 */
export function operationProblems(document: OpenAPIObject): string[] {
  const problems: string[] = [];
  for (const [name, operation] of operations(document)) {
    const security = operation.security;
    const scope = security?.[0]?.['bearer']?.[0];
    const isPublic =
      security !== undefined && security.length === 0 && /^Public: .+/.test(operation.description ?? '');
    const isAuthenticated =
      security?.length === 1 &&
      security[0]?.['bearer']?.length === 0 &&
      /^Needs a valid credential, no scope: .+/.test(operation.description ?? '');
    const scoped = scope !== undefined && (operation.description ?? '').includes(`\`${scope}\``);
    if (!isPublic && !isAuthenticated && !scoped) {
      problems.push(`${name}: no scope (bearer requirement and description) and not public with a reason`);
    }
    const responses = responsesOf(document, operation);
    const success = responses.filter(([status]) => status.startsWith('2'));
    if (success.length !== 1) problems.push(`${name}: ${success.length} success answers`);
    for (const [status, response] of success) {
      const media = mediaTypes(response);
      if (
        status !== '204' &&
        (media.length === 0 || !media.every((m) => m.schema !== undefined && hasExample(m)))
      ) {
        problems.push(`${name}: the ${status} answer has no schema or no example`);
      }
    }
    const errors = responses.filter(([status]) => /^[45]/.test(status));
    if (errors.length === 0) problems.push(`${name}: no error answer`);
    for (const [status, response] of errors) {
      if (!mediaTypes(response).every(hasExample))
        problems.push(`${name}: the ${status} answer has no example`);
    }
    const body = mediaTypes(operation.requestBody);
    if (!body.every(hasExample)) problems.push(`${name}: its request body has no example`);
  }
  return problems;
}

/** `$ref`s to the document's components made absolute, so a schema can be compiled on its own. */
function absolute(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(absolute);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#/')
        ? `${DOCUMENT_ID}${value}`
        : absolute(value),
    ]),
  );
}

/** Validates values against schemas of the document (JSON Schema 2020-12, as OpenAPI 3.1 has it). */
export class DocumentSchemas {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });

  constructor(document: OpenAPIObject) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: DOCUMENT_ID, components: document.components ?? {} });
  }

  /** Why `value` does not match `schema` (one of the document's, `$ref`s to its components allowed); [] if it does. */
  problems(schema: unknown, value: unknown): string[] {
    const validate = this.ajv.compile(absolute(schema) as object);
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`);
  }
}

/** Every example of the document (request bodies, answers, error codes) checked against its schema. */
export function exampleProblems(document: OpenAPIObject): string[] {
  const schemas = new DocumentSchemas(document);
  const problems: string[] = [];
  for (const [name, operation] of operations(document)) {
    const places: [string, MediaType][] = [
      ...mediaTypes(operation.requestBody).map((m): [string, MediaType] => ['request body', m]),
      ...responsesOf(document, operation).flatMap(([status, response]) =>
        mediaTypes(response).map((m): [string, MediaType] => [status, m]),
      ),
    ];
    for (const [where, media] of places) {
      if (media.schema === undefined) continue;
      const examples = [
        ...(media.example === undefined ? [] : [media.example]),
        ...Object.values(media.examples ?? {}).map((e) => e.value),
      ];
      for (const example of examples) {
        for (const problem of schemas.problems(media.schema, example))
          problems.push(`${name} ${where}: ${problem}`);
      }
    }
  }
  return problems;
}
