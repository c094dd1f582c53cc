import type { FastifyInstance } from 'fastify';
import { describeError } from '@ums/platform';

/**
 * Answers what the console's own routes throw (a proxied path leaving its prefix, a file that cannot be
 * read) in the platform's error shape, `{ error: { code, message } }`, as the services' routes answer,
 * rather than in Fastify's. `translate` may first turn a library's error into a coded one.
 */
export function answerErrorsInPlatformShape(
  scope: FastifyInstance,
  translate: (error: unknown) => unknown = (error) => error,
): void {
  scope.setErrorHandler((error, _request, reply) => {
    const [status, body] = describeError(translate(error));
    if (status === 503) void reply.header('retry-after', '1');
    void reply.status(status).send(body);
  });
}
