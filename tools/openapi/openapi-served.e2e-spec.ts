import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenAPIObject, ParameterObject } from '@nestjs/swagger';
import { workspaceRoot } from '@ums/testing';
import { AccessStack } from '../security/access-fixture';
import { DocumentSchemas, operations, resolveResponse } from './openapi-conformance';
import { OPENAPI_SERVICES, type OpenApiService } from './openapi.renderer';

jest.setTimeout(240_000);

const SHORT: Record<OpenApiService, 'scheduler' | 'dispatcher'> = {
  'campaign-scheduler': 'scheduler',
  'webhook-dispatcher': 'dispatcher',
};

function committed(service: OpenApiService): OpenAPIObject {
  return JSON.parse(
    readFileSync(join(workspaceRoot(), 'docs', 'openapi', `${service}.json`), 'utf8'),
  ) as OpenAPIObject;
}

/** The JSON schema the document gives the answer of `status` to `method path`. */
function answerSchema(document: OpenAPIObject, method: string, path: string, status: number): unknown {
  const operation = document.paths[path]?.[method.toLowerCase() as 'get'];
  const response = resolveResponse(document, operation?.responses[String(status)]) as
    { content?: Record<string, { schema?: unknown }> } | undefined;
  const schema = response?.content?.['application/json']?.schema;
  if (schema === undefined) throw new Error(`${method} ${path} documents no JSON answer ${status}`);
  return schema;
}

/**
 * The running services serve the committed documents and a reference page that needs no network, and
 * their real answers match the schemas the documents give them.
 */
describe('OpenAPI documents of the running services (real processes)', () => {
  const stack = new AccessStack();

  beforeAll(async () => {
    await stack.start();
  });

  afterAll(async () => {
    await stack.stop();
  });

  const urlOf = (service: OpenApiService): string =>
    service === 'campaign-scheduler' ? stack.scheduler.url : stack.dispatcher.url;

  it.each(OPENAPI_SERVICES)(
    '%s serves the committed document at /openapi.json, without a key',
    async (service) => {
      const response = await fetch(`${urlOf(service)}/openapi.json`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toEqual(committed(service));
      const log = readFileSync(
        (service === 'campaign-scheduler' ? stack.scheduler : stack.dispatcher).logFile,
        'utf8',
      );
      expect(log).toContain('"GET /openapi.json public"');
    },
  );

  it.each(OPENAPI_SERVICES)(
    '%s serves the reference page at /docs with its own assets (no CDN)',
    async (service) => {
      const page = await fetch(`${urlOf(service)}/docs`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await page.text();
      const sources = [...html.matchAll(/(?:src|href)=['"]([^'"]+)['"]/g)].map((m) => m[1] ?? '');
      expect(sources.length).toBeGreaterThan(2);
      expect(sources.filter((s) => /^(https?:)?\/\//.test(s))).toEqual([]);
      for (const asset of ['swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'swagger-ui.css']) {
        const answer = await fetch(`${urlOf(service)}/docs/${asset}`);
        expect([asset, answer.status]).toEqual([asset, 200]);
        expect((await answer.arrayBuffer()).byteLength).toBeGreaterThan(1000);
      }
      const init = await (await fetch(`${urlOf(service)}/docs/swagger-ui-init.js`)).text();
      expect(init).toContain(JSON.stringify(committed(service).info.title));
    },
  );

  it.each(OPENAPI_SERVICES)('%s answers its list routes as its document says', async (service) => {
    const document = committed(service);
    const schemas = new DocumentSchemas(document);
    const lists = operations(document).filter(
      ([name, op]) =>
        name.startsWith('GET ') &&
        !name.includes('{') &&
        !((op.parameters ?? []) as ParameterObject[]).some((p) => p.required === true) &&
        op.responses['200'] !== undefined &&
        'application/json' in ((op.responses['200'] as { content?: object }).content ?? {}),
    );
    expect(lists.length).toBeGreaterThan(0);
    for (const [name] of lists) {
      const path = name.slice('GET '.length);
      const answer = await stack.call(SHORT[service], 'GET', path, undefined, stack.keyA);
      expect([name, answer.status]).toEqual([name, 200]);
      expect([name, schemas.problems(answerSchema(document, 'GET', path, 200), answer.body)]).toEqual([
        name,
        [],
      ]);
      const anonymous = await stack.call(SHORT[service], 'GET', path);
      expect([name, anonymous.status]).toEqual([name, 401]);
      expect(schemas.problems(answerSchema(document, 'GET', path, 401), anonymous.body)).toEqual([]);
    }
  });

  it('creates an API key from the documented example, answering as documented; refusals too', async () => {
    const document = committed('campaign-scheduler');
    const schemas = new DocumentSchemas(document);
    const create = document.paths['/v1/api-keys']?.post?.requestBody as {
      content: Record<string, { example: unknown }>;
    };
    const created = await stack.call(
      'scheduler',
      'POST',
      '/v1/api-keys',
      create.content['application/json']?.example,
      stack.keyA,
    );
    expect(created.status).toBe(201);
    expect(schemas.problems(answerSchema(document, 'POST', '/v1/api-keys', 201), created.body)).toEqual([]);
    const invalid = await stack.call('scheduler', 'POST', '/v1/api-keys', { name: '' }, stack.keyA);
    expect(invalid.status).toBe(400);
    expect(schemas.problems(answerSchema(document, 'POST', '/v1/api-keys', 400), invalid.body)).toEqual([]);
    const large = await stack.call(
      'scheduler',
      'POST',
      '/v1/api-keys',
      { name: 'x'.repeat(1_100_000) },
      stack.keyA,
    );
    expect(large.status).toBe(413);
    expect(schemas.problems(answerSchema(document, 'POST', '/v1/api-keys', 413), large.body)).toEqual([]);
    for (const [contentType, body, status] of [
      ['text/plain', 'name', 415],
      ['application/json', '{"name": ', 400],
    ] as const) {
      const answer = await fetch(`${stack.scheduler.url}/v1/api-keys`, {
        method: 'POST',
        headers: { 'content-type': contentType, authorization: `Bearer ${stack.keyA}` },
        body,
      });
      expect([contentType, answer.status]).toEqual([contentType, status]);
      const schema = answerSchema(document, 'POST', '/v1/api-keys', status);
      expect(schemas.problems(schema, await answer.json())).toEqual([]);
    }
    const missing = await stack.call('scheduler', 'GET', '/v1/campaigns/cmp_missing', undefined, stack.keyA);
    expect(missing.status).toBe(404);
    expect(
      schemas.problems(answerSchema(document, 'GET', '/v1/campaigns/{campaignId}', 404), missing.body),
    ).toEqual([]);
  });
});
