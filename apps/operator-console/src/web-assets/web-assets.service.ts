import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import fastifyStatic from '@fastify/static';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { answerErrorsInPlatformShape } from '../http/error-shape';
import { HASHED_CACHE_CONTROL, INDEX_FILE, REVALIDATE_CACHE_CONTROL, webPath } from './web-path';

/** The Vite build the console serves: dist/apps/operator-console/web, beside this app's compiled src/. */
export function webRoot(): string {
  return resolve(__dirname, '..', '..', 'web');
}

/** The platform's 404 (ROUTE_NOT_FOUND, in its JSON error shape). */
function notFound(reply: FastifyReply): FastifyReply {
  reply.callNotFound();
  return reply;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * Serves the browser app on GET (and HEAD): `/` and every deep link without an extension load
 * index.html (the app routes by `#/...` fragments, and a path some link or bookmark added still
 * loads it), `/assets/*` the hashed bundles, other paths the build's own files; anything else is the
 * platform's JSON 404. The build is read from disk on every request, so a new `npm run build` is
 * served without a restart.
 */
@Injectable()
export class WebAssetsService implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  async onModuleInit(): Promise<void> {
    const root = webRoot();
    if (!existsSync(join(root, INDEX_FILE))) {
      throw new Error(`The console's web build is missing (no ${join(root, INDEX_FILE)}): run npm run build`);
    }
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    await fastify.register(async (scope) => {
      answerErrorsInPlatformShape(scope);
      // reply.sendFile only: the routes below decide what is served, and how long it is cached.
      await scope.register(fastifyStatic, { root, serve: false, dotfiles: 'deny', index: false });
      scope.get('/', (_request, reply) => this.page(reply));
      scope.get('/*', (request, reply) => this.serve(root, request, reply));
    });
  }

  private page(reply: FastifyReply): FastifyReply {
    return reply
      .header('cache-control', REVALIDATE_CACHE_CONTROL)
      .sendFile(INDEX_FILE, { cacheControl: false });
  }

  private async serve(root: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const target = webPath(root, (request.params as { '*'?: string })['*'] ?? '');
    switch (target.kind) {
      case 'index':
        return this.page(reply);
      case 'asset':
        if (!(await isFile(join(root, target.file)))) return notFound(reply);
        return reply
          .header('cache-control', HASHED_CACHE_CONTROL)
          .sendFile(target.file, { cacheControl: false });
      case 'file':
        if (await isFile(join(root, target.file))) {
          return reply
            .header('cache-control', REVALIDATE_CACHE_CONTROL)
            .sendFile(target.file, { cacheControl: false });
        }
        return target.fallback ? this.page(reply) : notFound(reply);
      case 'none':
        return notFound(reply);
    }
  }
}
