import { Writable } from 'node:stream';
import fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { LOG_SERIALIZERS } from './logging.module';
import { writeRequestLog } from './request-log.hook';

interface Line {
  readonly level: number;
  readonly msg: string;
  readonly req?: {
    readonly method?: string;
    readonly url?: string;
    readonly headers?: Record<string, string>;
  };
  readonly res?: { readonly statusCode?: number };
  readonly err?: { readonly message?: string };
  readonly responseTime?: number;
}

/** A Fastify app whose answers are request-logged by writeRequestLog into `lines`. */
async function appLoggingAt(level: string, lines: Line[]): Promise<FastifyInstance> {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done): void {
      lines.push(JSON.parse(chunk.toString('utf8')) as Line);
      done();
    },
  });
  // The serializers the platform gives the root logger.
  const logger = pino({ level, serializers: LOG_SERIALIZERS }, stream);
  const app = fastify();
  app.addHook('onResponse', (request, reply, done) => {
    writeRequestLog(logger, request, reply);
    done();
  });
  app.get('/ok', () => ({ ok: true }));
  app.get('/refused', (_request, reply) => reply.status(400).send({ error: 'no' }));
  app.get('/failed', (_request, reply) => reply.status(503).send({ error: 'down' }));
  app.get('/health/ready', (_request, reply) => reply.status(503).send({ status: 'unavailable' }));
  await app.ready();
  return app;
}

describe('writeRequestLog', () => {
  it('logs refusals as warnings and failures as errors, with the request, the answer and the time', async () => {
    const lines: Line[] = [];
    const app = await appLoggingAt('info', lines);
    await app.inject({ method: 'GET', url: '/ok' });
    await app.inject({
      method: 'GET',
      url: '/refused?x=1&token=t0k',
      headers: { 'x-hub-signature-256': 'sha256=ab', 'user-agent': 'probe' },
    });
    await app.inject({ method: 'GET', url: '/failed' });
    await app.close();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      level: 40,
      msg: 'request completed',
      req: {
        method: 'GET',
        url: '/refused?x=1&token=[redacted]',
        headers: { 'user-agent': 'probe' },
        ip: '127.0.0.1',
        protocol: 'http',
      },
      res: { statusCode: 400 },
    });
    expect(lines[0]?.req?.headers).not.toHaveProperty('x-hub-signature-256');
    expect(JSON.stringify(lines)).not.toContain('t0k');
    expect(typeof lines[0]?.responseTime).toBe('number');
    expect(lines[1]).toMatchObject({
      level: 50,
      msg: 'request errored',
      res: { statusCode: 503 },
      err: { message: 'failed with status code 503' },
    });
  });

  it('logs successes only at debug, and never health or metrics probes', async () => {
    const lines: Line[] = [];
    const app = await appLoggingAt('debug', lines);
    await app.inject({ method: 'GET', url: '/ok' });
    await app.inject({ method: 'GET', url: '/health/ready' });
    await app.close();
    expect(lines.map((line) => [line.level, line.req?.url, line.res?.statusCode])).toEqual([
      [20, '/ok', 200],
    ]);
  });
});
