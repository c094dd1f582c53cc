import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidInputError, NotFoundError } from '../errors/coded-error';
import { type FastRequest, FastRoutes } from './fast-routes.registry';

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** A raw HTTP/1.1 request (so the body can be chunked and the declared length can lie). */
function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  chunks: readonly string[],
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('FastRoutes in front of a framework listener (real HTTP server on loopback)', () => {
  let server: Server;
  let port: number;
  const seen: FastRequest[] = [];

  beforeAll(async () => {
    // The "framework": whatever the server answered before the fast routes were installed.
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(404, { 'x-by': 'framework' }).end('framework'));
    });
    const routes = new FastRoutes();
    routes.register({
      method: 'POST',
      path: '/v1/hooks/echo/:id',
      bodyLimitBytes: 64,
      contentTypes: ['application/json', 'text/plain'],
      handle: (request) => {
        seen.push(request);
        const id = request.params['id'] ?? '';
        if (id === 'missing') return Promise.reject(new NotFoundError('THING_NOT_FOUND', 'no such thing'));
        if (id === 'bad') throw InvalidInputError.field('THING_INVALID', 'thing', 'is bad');
        if (id === 'boom') return Promise.reject(new Error('database exploded'));
        return Promise.resolve({
          status: 200,
          contentType: 'application/json; charset=utf-8',
          body: JSON.stringify({ id, bytes: request.body.length, origin: request.origin }),
        });
      },
    });
    routes.install(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('answers a matching request with its raw body, decoded parameters and origin', async () => {
    const answer = await send(
      port,
      'POST',
      '/v1/hooks/echo/a%20b?x=1',
      {
        'content-type': 'application/json; charset=utf-8',
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'hooks.example.com',
      },
      ['{"a":', '1}'],
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ id: 'a b', bytes: 7, origin: 'https://hooks.example.com' });
    expect(seen.at(-1)?.url).toBe('/v1/hooks/echo/a%20b?x=1');
    expect(seen.at(-1)?.body.toString()).toBe('{"a":1}');
  });

  it('passes everything else to the framework listener', async () => {
    for (const [method, path] of [
      ['GET', '/v1/hooks/echo/a'],
      ['POST', '/v1/hooks/echo'],
      ['POST', '/v1/hooks/echo/a/b'],
      ['POST', '/v1/hooks/echo/'],
      ['POST', '/v1/other/echo/a'],
    ] as const) {
      const answer = await send(
        port,
        method,
        path,
        { 'content-type': 'application/json' },
        method === 'GET' ? [] : ['{}'],
      );
      expect([path, answer.status, answer.headers['x-by']]).toEqual([path, 404, 'framework']);
    }
  });

  it('refuses a body over the limit, declared or streamed, with 413 and closes the connection', async () => {
    const declared = await send(
      port,
      'POST',
      '/v1/hooks/echo/a',
      { 'content-type': 'text/plain', 'content-length': '65' },
      ['x'.repeat(65)],
    );
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toMatchObject({ error: { code: 'BODY_TOO_LARGE' } });
    expect(declared.headers['connection']).toBe('close');
    const before = seen.length;
    const streamed = await send(port, 'POST', '/v1/hooks/echo/a', { 'content-type': 'text/plain' }, [
      'x'.repeat(40),
      'x'.repeat(40),
    ]);
    expect(streamed.status).toBe(413);
    expect(seen.length).toBe(before); // the handler never ran
  });

  it('refuses another media type naming the header', async () => {
    const answer = await send(port, 'POST', '/v1/hooks/echo/a', { 'content-type': 'application/xml' }, [
      '<a/>',
    ]);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({
      error: {
        code: 'CONTENT_TYPE_INVALID',
        message: 'content-type: must be one of application/json, text/plain',
        fields: [{ field: 'content-type', reason: 'must be one of application/json, text/plain' }],
      },
    });
  });

  it('answers coded errors in the one error shape, thrown or rejected, and hides unexpected ones', async () => {
    const json = { 'content-type': 'application/json' };
    const missing = await send(port, 'POST', '/v1/hooks/echo/missing', json, ['{}']);
    expect([missing.status, JSON.parse(missing.body)]).toEqual([
      404,
      { error: { code: 'THING_NOT_FOUND', message: 'no such thing' } },
    ]);
    const bad = await send(port, 'POST', '/v1/hooks/echo/bad', json, ['{}']);
    expect([bad.status, (JSON.parse(bad.body) as { error: { code: string } }).error.code]).toEqual([
      400,
      'THING_INVALID',
    ]);
    const boom = await send(port, 'POST', '/v1/hooks/echo/boom', json, ['{}']);
    expect([boom.status, JSON.parse(boom.body)]).toEqual([
      500,
      { error: { code: 'UNEXPECTED', message: 'Unexpected error; see the service log' } },
    ]);
  });
});
