import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';

/** The API port's connections, and which of them are serving a request now. */
export class ConnectionLedger {
  private readonly open = new Set<Socket>();
  private readonly serving = new Set<Socket>();

  constructor(server: Server) {
    server.on('connection', (socket: Socket) => {
      this.open.add(socket);
      socket.once('close', () => {
        this.open.delete(socket);
        this.serving.delete(socket);
      });
    });
    server.on('request', (request, response) => {
      const socket = request.socket as Socket;
      this.serving.add(socket);
      response.once('close', () => this.serving.delete(socket));
    });
  }

  /** Closes the connections that serve no request (idle keep-alives, and ones that never sent one). */
  closeIdle(): number {
    let closed = 0;
    for (const socket of this.open) {
      if (this.serving.has(socket)) continue;
      socket.destroy();
      closed++;
    }
    return closed;
  }
}

/**
 * When the service stops, closes the API port's connections that serve no request, so the drain waits
 * only for calls in progress. Node's own close leaves a connection that has not sent a request yet open
 * (a browser opens such connections ahead of use) until its headers time out, past the drain's deadline.
 * Connections carrying a live stream are serving one: the proxy cuts those (ConsoleProxyService).
 */
@Injectable()
export class IdleConnectionsService implements OnModuleInit {
  private readonly logger = new Logger('shutdown');

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const ledger = new ConnectionLedger(fastify.server);
    fastify.addHook('preClose', (done) => {
      const closed = ledger.closeIdle();
      if (closed > 0) this.logger.log(`closed ${closed} idle connection(s) of the API port`);
      done();
    });
  }
}
