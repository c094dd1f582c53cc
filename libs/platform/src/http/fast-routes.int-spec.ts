import { type ClientRequest, createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CallbackErrorCode, CredentialErrorCode } from '@ums/contracts';
import { InvalidInputError, NotFoundError, UnavailableError } from '../errors/coded-error';
import { type FastRequest, FastRoutes } from './fast-routes.registry';
import { InFlightBytes } from './in-flight-bytes';
import { TrustedProxies } from './trusted-proxies';

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

interface Open {
  readonly req: ClientRequest;
  /** Settles with the answer, even when it comes before the request body was all sent. */
  readonly answer: Promise<Answer>;
}

/** A raw HTTP/1.1 request left open: the caller writes (or never writes) the body. */
function open(
  port: number,
  path: string,
  headers: Record<string, string>,
  options: { method?: string; localAddress?: string } = {},
): Open {
  let req: ClientRequest | undefined;
  const answer = new Promise<Answer>((resolve, reject) => {
    req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'POST',
        path,
        headers,
        localAddress: options.localAddress,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    // A write cut off by the server's early answer and close is not a failure of the exchange.
    req.on('error', (error) => setTimeout(() => reject(error), 200));
  });
  if (req === undefined) throw new Error('request not created');
  answer.catch(() => undefined); // a test that fails early leaves some unawaited
  return { req, answer };
}

/** A whole request (so the body can be chunked and the declared length can lie). */
function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  chunks: readonly string[],
  localAddress?: string,
): Promise<Answer> {
  const { req, answer } = open(port, path, headers, { method, localAddress });
  for (const chunk of chunks) req.write(chunk);
  req.end();
  return answer;
}

const errorOf = (answer: Answer): { code?: string; message?: string } =>
  (JSON.parse(answer.body) as { error: { code?: string; message?: string } }).error;

describe('FastRoutes in front of a framework listener (real HTTP server on loopback)', () => {
  let server: Server;
  let port: number;
  const seen: FastRequest<unknown>[] = [];
  const budget = new InFlightBytes({ limitBytes: 100 });

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
        if (id === 'missing')
          return Promise.reject(new NotFoundError(CredentialErrorCode.NotFound, 'no such thing'));
        if (id === 'bad') throw InvalidInputError.field(CallbackErrorCode.Malformed, 'thing', 'is bad');
        if (id === 'boom') return Promise.reject(new Error('database exploded'));
        if (id === 'down') {
          return Promise.reject(
            new UnavailableError(CallbackErrorCode.KafkaUnavailable, 'connect ECONNREFUSED 10.1.2.3:3306'),
          );
        }
        return Promise.resolve({
          status: 200,
          contentType: 'application/json; charset=utf-8',
          body: JSON.stringify({ id, bytes: request.body.length, origin: request.origin, ip: request.ip }),
        });
      },
    });
    routes.register({
      method: 'POST',
      path: '/v1/hooks/known/:id',
      bodyLimitBytes: 80,
      contentTypes: ['text/plain'],
      inFlight: budget,
      admit: (head) =>
        head.params['id'] === 'k'
          ? Promise.resolve({ name: 'thing k' })
          : Promise.reject(new NotFoundError(CredentialErrorCode.NotFound, 'no such thing')),
      handle: (request) => {
        seen.push(request);
        return Promise.resolve({
          status: 200,
          contentType: 'application/json; charset=utf-8',
          body: JSON.stringify({ admitted: request.admitted, bytes: request.body.length }),
        });
      },
    });
    routes.install(server, { trustedProxies: new TrustedProxies(['127.0.0.2/32']) });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('answers a matching request with its raw body, decoded parameters and origin', async () => {
    const answer = await send(
      port,
      'POST',
      '/v1/hooks/echo/a%20b?x=1',
      { 'content-type': 'application/json; charset=utf-8' },
      ['{"a":', '1}'],
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({
      id: 'a b',
      bytes: 7,
      origin: `http://127.0.0.1:${port}`,
      ip: '127.0.0.1',
    });
    expect(seen.at(-1)?.url).toBe('/v1/hooks/echo/a%20b?x=1');
    expect(seen.at(-1)?.body.toString()).toBe('{"a":1}');
  });

  it('believes X-Forwarded-* only from a trusted proxy (the last value the proxy wrote)', async () => {
    const forwarded = {
      'content-type': 'application/json',
      'x-forwarded-proto': 'http, https',
      'x-forwarded-host': 'evil.example.com, hooks.example.com',
      'x-forwarded-for': '198.51.100.1, 203.0.113.9',
    };
    const untrusted = await send(port, 'POST', '/v1/hooks/echo/a', forwarded, ['{}'], '127.0.0.1');
    expect(JSON.parse(untrusted.body)).toMatchObject({ origin: `http://127.0.0.1:${port}`, ip: '127.0.0.1' });
    const trusted = await send(port, 'POST', '/v1/hooks/echo/a', forwarded, ['{}'], '127.0.0.2');
    expect(JSON.parse(trusted.body)).toMatchObject({
      origin: 'https://hooks.example.com',
      ip: '203.0.113.9',
    });
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
    expect(errorOf(declared).code).toBe('BODY_TOO_LARGE');
    expect(declared.headers['connection']).toBe('close');
    const before = seen.length;
    // Streamed without a length, and never ended: the answer comes once the limit is passed.
    const streamed = open(port, '/v1/hooks/echo/a', { 'content-type': 'text/plain' });
    streamed.req.write('x'.repeat(40));
    streamed.req.write('x'.repeat(40));
    const answer = await streamed.answer;
    expect([answer.status, answer.headers['connection']]).toEqual([413, 'close']);
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

  it('answers coded errors in the one error shape, and 5xx without the error text', async () => {
    const json = { 'content-type': 'application/json' };
    const missing = await send(port, 'POST', '/v1/hooks/echo/missing', json, ['{}']);
    expect([missing.status, JSON.parse(missing.body)]).toEqual([
      404,
      { error: { code: 'CREDENTIAL_NOT_FOUND', message: 'no such thing' } },
    ]);
    const bad = await send(port, 'POST', '/v1/hooks/echo/bad', json, ['{}']);
    expect([bad.status, errorOf(bad).code]).toEqual([400, 'CALLBACK_MALFORMED']);
    const boom = await send(port, 'POST', '/v1/hooks/echo/boom', json, ['{}']);
    expect([boom.status, JSON.parse(boom.body)]).toEqual([
      500,
      { error: { code: 'UNEXPECTED', message: 'Unexpected error; see the service log' } },
    ]);
    const down = await send(port, 'POST', '/v1/hooks/echo/down', json, ['{}']);
    expect([down.status, down.headers['retry-after'], JSON.parse(down.body)]).toEqual([
      503,
      '1',
      { error: { code: 'KAFKA_UNAVAILABLE', message: 'Service unavailable; retry later' } },
    ]);
  });

  it('answers what admit refuses at once, the body unread, and hands what it admitted to the handler', async () => {
    // A large declared body of which nothing is sent: the answer cannot have waited for it.
    const unknown = open(port, '/v1/hooks/known/nope', {
      'content-type': 'text/plain',
      'content-length': '80',
    });
    unknown.req.flushHeaders();
    const refused = await unknown.answer;
    expect([refused.status, errorOf(refused).code, refused.headers['connection']]).toEqual([
      404,
      'CREDENTIAL_NOT_FOUND',
      'close',
    ]);
    const known = await send(port, 'POST', '/v1/hooks/known/k', { 'content-type': 'text/plain' }, ['abc']);
    expect([known.status, JSON.parse(known.body)]).toEqual([
      200,
      { admitted: { name: 'thing k' }, bytes: 3 },
    ]);
    expect(budget.inUse).toBe(0);
  });

  it('holds the bodies in flight within the budget: 503 with Retry-After beyond it, declared or streamed', async () => {
    // 80 of the 100 bytes taken by a request that has sent 10 of them.
    const holder = open(port, '/v1/hooks/known/k', { 'content-type': 'text/plain', 'content-length': '80' });
    holder.req.write('x'.repeat(10));
    await waitFor(() => budget.inUse === 80);
    const declared = await send(
      port,
      'POST',
      '/v1/hooks/known/k',
      { 'content-type': 'text/plain', 'content-length': '30' },
      ['x'.repeat(30)],
    );
    expect([declared.status, declared.headers['retry-after'], errorOf(declared).code]).toEqual([
      503,
      '1',
      'IN_FLIGHT_BYTES_EXCEEDED',
    ]);
    // No declared length: refused once its chunks pass the budget, while it is still streaming.
    const streamed = open(port, '/v1/hooks/known/k', { 'content-type': 'text/plain' });
    streamed.req.write('x'.repeat(15));
    streamed.req.write('x'.repeat(15));
    const cut = await streamed.answer;
    expect([cut.status, cut.headers['connection']]).toEqual([503, 'close']);
    expect(budget.inUse).toBe(80);
    holder.req.end('x'.repeat(70));
    expect((await holder.answer).status).toBe(200);
    expect(budget.inUse).toBe(0);
    const again = await send(port, 'POST', '/v1/hooks/known/k', { 'content-type': 'text/plain' }, [
      'x'.repeat(30),
    ]);
    expect(again.status).toBe(200);
  });

  it('gives the budget back when a client leaves in the middle of its body', async () => {
    const leaving = open(port, '/v1/hooks/known/k', { 'content-type': 'text/plain', 'content-length': '80' });
    leaving.req.write('x'.repeat(10));
    await waitFor(() => budget.inUse === 80);
    leaving.req.destroy();
    await waitFor(() => budget.inUse === 0);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}
