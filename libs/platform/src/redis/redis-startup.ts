import { connect } from 'node:net';
import { RedisErrorCode } from '@ums/contracts';
import type { RedisConfig } from '../config/common.config';
import { isRedisCluster, REDIS_COMMAND_TIMEOUT_MS, type RedisClient } from './redis-client';
import { describeRedisFailure, RedisConnectionError, type RedisFailure } from './redis-failure';

/** How long start-up waits for Redis's first answer before going on (a down Redis is retried later). */
const FIRST_ANSWER_WAIT_MS = 2 * REDIS_COMMAND_TIMEOUT_MS + 1_000;

export interface RedisStartOptions {
  readonly client: RedisClient;
  readonly config: RedisConfig;
  readonly waitMs?: number;
}

/**
 * Waits for the connection's first outcome. A misconfiguration (credentials, TLS, a plain client on
 * a TLS-only port, the wrong REDIS_MODE) throws a RedisConnectionError naming the setting; a Redis
 * that is only down or slow resolves (with its failure), as the connection keeps retrying on its own.
 */
export async function checkRedisAtStart(options: RedisStartOptions): Promise<RedisFailure | undefined> {
  const tls = options.config.REDIS_URL.startsWith('rediss://');
  const failure = await firstOutcome(options.client, tls, options.waitMs ?? FIRST_ANSWER_WAIT_MS);
  if (failure?.permanent) throw new RedisConnectionError(failure, undefined);
  if (failure !== undefined && tls && (await acceptsTcp(firstAddress(options.config)))) {
    // TCP is answered but no TLS handshake completed: a plain port waits for a command forever.
    throw new RedisConnectionError(
      {
        code: RedisErrorCode.TlsNotSpoken,
        setting: 'REDIS_URL',
        reason:
          'the port accepts connections but completed no TLS handshake; it may not speak TLS (use redis://)',
        permanent: true,
      },
      undefined,
    );
  }
  if (failure !== undefined) return failure;
  if (options.config.REDIS_MODE !== 'cluster' && !isRedisCluster(options.client)) {
    const info = await options.client.info('cluster').catch(() => '');
    if (/cluster_enabled:1/.test(info))
      throw new RedisConnectionError(
        {
          code: RedisErrorCode.ModeMismatch,
          setting: 'REDIS_MODE',
          reason: `the server is a cluster node but REDIS_MODE is ${options.config.REDIS_MODE}`,
          permanent: true,
        },
        undefined,
      );
  }
  return undefined;
}

function firstOutcome(client: RedisClient, tls: boolean, waitMs: number): Promise<RedisFailure | undefined> {
  if (client.status === 'ready') return Promise.resolve(undefined);
  return new Promise((resolve) => {
    let connected = false;
    let last: RedisFailure | undefined;
    const done = (outcome: RedisFailure | undefined): void => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('error', onError);
      client.off('connect', onConnect);
      client.off('close', onClose);
      resolve(outcome);
    };
    const onReady = (): void => done(undefined);
    const onConnect = (): void => {
      connected = true;
    };
    const onError = (error: unknown): void => {
      last = describeRedisFailure(error, { tls });
      if (last.permanent) done(last);
    };
    const onClose = (): void => {
      // A reset after the TCP connection opened, before any reply: what a TLS-only port does.
      if (!connected || (last !== undefined && last.code !== RedisErrorCode.Unreachable)) return;
      done(describeRedisFailure(new Error('closed before answering'), { closedBeforeReply: true, tls }));
    };
    const timer = setTimeout(
      () => done(last ?? describeRedisFailure(new Error(`no answer within ${waitMs} ms`))),
      waitMs,
    );
    client.on('ready', onReady);
    client.on('error', onError);
    client.on('connect', onConnect);
    client.on('close', onClose);
  });
}

/** The server a connection tries first: REDIS_URL's, or the first cluster node or sentinel. */
function firstAddress(config: RedisConfig): { host: string; port: number } {
  const list =
    config.REDIS_MODE === 'cluster'
      ? config.REDIS_CLUSTER_NODES
      : config.REDIS_MODE === 'sentinel'
        ? config.REDIS_SENTINELS
        : [];
  const [first] = list;
  if (first !== undefined) {
    const at = first.lastIndexOf(':');
    return { host: first.slice(0, at), port: Number(first.slice(at + 1)) };
  }
  const url = new URL(config.REDIS_URL);
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || '6379') };
}

/** Whether a TCP connection to the address opens within a second. */
function acceptsTcp(address: { host: string; port: number }): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(address);
    socket.setTimeout(1_000, () => socket.destroy());
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('close', () => resolve(false));
  });
}
