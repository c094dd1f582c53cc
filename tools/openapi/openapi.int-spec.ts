import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenAPIObject, ParameterObject } from '@nestjs/swagger';
import { validate } from '@readme/openapi-parser';
import {
  apiExampleOf,
  createValidationPipe,
  documentedRoutes,
  type JsonSchema,
  nestedClasses,
  type SchemaClass,
} from '@ums/platform';
import { workspaceRoot } from '@ums/testing';
import { missingLimits } from './dto-limits';
import { exampleProblems, operationProblems, operations } from './openapi-conformance';
import {
  OPENAPI_SERVICES,
  type OpenApiService,
  openApiFileText,
  renderOpenApiDocument,
  withPreviewApp,
} from './openapi.renderer';

jest.setTimeout(60_000);

/** The DTO classes a service's routes bind, with the fields of each as its document shows them. */
async function describedClasses(
  service: OpenApiService,
  document: OpenAPIObject,
): Promise<[SchemaClass, Record<string, JsonSchema>][]> {
  const byOperation = new Map(operations(document).map(([, op]) => [op.operationId, op]));
  const schemas = (document.components?.schemas ?? {}) as Record<string, JsonSchema>;
  const found: [SchemaClass, Record<string, JsonSchema>][] = [];
  await withPreviewApp(service, async (app) => {
    for (const route of documentedRoutes(app)) {
      const parameters = (byOperation.get(route.operationId)?.parameters ?? []) as ParameterObject[];
      for (const input of route.inputs) {
        if (input.name !== undefined || typeof input.type !== 'function' || input.type === Object) continue;
        const cls = input.type as SchemaClass;
        if (input.source === 'body') {
          for (const each of [cls, ...nestedClasses(cls)]) {
            found.push([each, (schemas[each.name]?.['properties'] ?? {}) as Record<string, JsonSchema>]);
          }
        } else {
          const where = input.source === 'path' ? 'path' : 'query';
          const fields = parameters
            .filter((p) => p.in === where)
            .map((p) => [p.name, p.schema as JsonSchema]);
          found.push([cls, Object.fromEntries(fields)]);
        }
      }
    }
    return Promise.resolve();
  });
  return found;
}

describe.each(OPENAPI_SERVICES)('docs/openapi/%s.json', (service) => {
  let document: OpenAPIObject;
  const problems: string[] = [];

  beforeAll(async () => {
    document = await renderOpenApiDocument(service, problems);
  });

  it('is the committed document (regenerate with npm run docs:openapi)', () => {
    const committed = readFileSync(join(workspaceRoot(), 'docs', 'openapi', `${service}.json`), 'utf8');
    expect(committed).toBe(openApiFileText(document));
  });

  it('describes every DTO: each validator has its JSON Schema form, each conditional field its rule', () => {
    expect(problems).toEqual([]);
  });

  it('is valid OpenAPI 3.1 (@readme/openapi-parser), without errors or warnings', async () => {
    const result = await validate(structuredClone(document) as Parameters<typeof validate>[0]);
    expect(result).toEqual({ valid: true, warnings: [], specification: 'OpenAPI' });
    expect(document.openapi).toBe('3.1.0');
  });

  it('gives every route its scope (or why it is public), its error answers and examples', () => {
    expect(operations(document).length).toBeGreaterThan(5);
    expect(operationProblems(document)).toEqual([]);
  });

  it('has examples that match their schemas', () => {
    expect(exampleProblems(document)).toEqual([]);
  });

  it("keeps every validator's limit, enum and pattern in the request schemas", async () => {
    const classes = await describedClasses(service, document);
    expect(classes.length).toBeGreaterThan(3);
    expect(classes.flatMap(([cls, fields]) => missingLimits(cls, fields))).toEqual([]);
  });

  it('shows request body examples that the validation pipe accepts', async () => {
    const refused: string[] = [];
    let checked = 0;
    await withPreviewApp(service, async (app) => {
      for (const route of documentedRoutes(app)) {
        const body = route.inputs.find((i) => i.source === 'body' && i.name === undefined);
        const example = apiExampleOf(body?.type);
        if (example === undefined) continue;
        checked += 1;
        await createValidationPipe()
          .transform(structuredClone(example), { type: 'body', metatype: body?.type as SchemaClass })
          .catch((error: unknown) => refused.push(`${route.operationId}: ${String(error)}`));
      }
    });
    expect(refused).toEqual([]);
    expect(checked).toBeGreaterThan(1);
  });
});
