import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Provider } from '@ums/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CallbacksConfig } from './callbacks.config';

/** Route config (`@RouteConfig`) naming whose body limit applies. */
export interface CallbackRouteConfig {
  readonly callbackProvider: Provider;
}

// SNS posts JSON as text/plain.
const CONTENT_TYPES = ['application/json', 'application/x-www-form-urlencoded', 'text/plain'];

class BodyTooLargeError extends Error {
  readonly statusCode = 413;
  readonly code = 'BODY_TOO_LARGE';
}

/**
 * Signatures cover the exact bytes a provider sent, so this service keeps bodies raw: JSON and
 * form bodies arrive in handlers as a Buffer, parsed only after verification. Each callback route
 * has its own size limit (Meta batches several MB; Twilio and Mitto post one status), enforced while
 * reading, so an oversized body is refused with 413 without being buffered whole.
 */
@Injectable()
export class RawBodyParser implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly config: CallbacksConfig,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    // Nest registered its parsing ones already; these replace them for every route of this service.
    for (const type of CONTENT_TYPES) {
      if (fastify.hasContentTypeParser(type)) fastify.removeContentTypeParser(type);
    }
    fastify.addContentTypeParser(CONTENT_TYPES, (request, payload, done) => {
      const limit = this.limitOf(request);
      const declared = Number(request.headers['content-length']);
      if (Number.isFinite(declared) && declared > limit) {
        done(new BodyTooLargeError(`body larger than ${limit} bytes`), undefined);
        payload.resume();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let finished = false;
      const finish = (error: Error | null, body?: Buffer): void => {
        if (finished) return;
        finished = true;
        done(error, body);
      };
      payload.on('data', (chunk: Buffer) => {
        if (finished) return;
        size += chunk.length;
        if (size > limit) {
          finish(new BodyTooLargeError(`body larger than ${limit} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      // A callback body mostly arrives in one chunk: it is used as it is, not copied.
      payload.on('end', () => finish(null, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)));
      payload.on('error', (error: Error) => finish(error));
    });
  }

  private limitOf(request: FastifyRequest): number {
    const config = request.routeOptions.config as Partial<CallbackRouteConfig> | undefined;
    switch (config?.callbackProvider) {
      case Provider.WhatsAppCloud:
        return this.config.INGEST_WHATSAPP_MAX_BODY_BYTES;
      case Provider.Twilio:
        return this.config.INGEST_TWILIO_MAX_BODY_BYTES;
      case Provider.Mitto:
        return this.config.INGEST_MITTO_MAX_BODY_BYTES;
      case Provider.Simulator:
        return this.config.INGEST_SIMULATOR_MAX_BODY_BYTES;
      case Provider.Ses:
        return this.config.INGEST_SES_MAX_BODY_BYTES;
      case undefined:
        return 64 * 1024;
    }
  }
}
