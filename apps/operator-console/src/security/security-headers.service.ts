import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { SECURITY_HEADERS } from './security-headers';

/** Sets SECURITY_HEADERS on every answer of the API port, before any route or error handler runs. */
@Injectable()
export class SecurityHeadersService implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const entries = Object.entries(SECURITY_HEADERS);
    fastify.addHook('onRequest', (_request, reply, done) => {
      for (const [name, value] of entries) void reply.header(name, value);
      done();
    });
  }
}
