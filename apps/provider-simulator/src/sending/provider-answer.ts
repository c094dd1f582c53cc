import type { FastifyReply } from 'fastify';

/** An answer in a provider's own shape: status, body and headers. */
export interface ProviderAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Record<string, string>;
}

export function sendAnswer(reply: FastifyReply, result: ProviderAnswer): void {
  if (result.headers !== undefined) void reply.headers(result.headers);
  void reply.status(result.status).send(result.body);
}
