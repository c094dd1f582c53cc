import { Global, Inject, Injectable, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { RedisConfig } from '../config/common.config';
import { HealthRegistry } from '../health/health-registry';

/** Closes the shared connection last, after consumers that may still use it have stopped. */
@Injectable()
class RedisLifecycle implements OnApplicationShutdown {
  constructor(@Inject(Redis) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit();
  }
}

/** A lost connection is logged at most this often (ioredis reports every reconnect attempt). */
const ERROR_LOG_EVERY_MS = 10_000;
/** Longest wait for one command's answer or a connection; the rate limiter's scripts answer in microseconds. */
const REDIS_COMMAND_TIMEOUT_MS = 2_000;

/**
 * One ioredis connection per process (commands pipeline over it); inject `Redis`. While Redis is
 * down, ioredis reconnects on its own; commands fail after maxRetriesPerRequest reconnect attempts
 * (callers decide: the sender's limiter fails closed, the dispatcher's failure window fails open),
 * readiness says `redis` not ok, and the connection's `error` events are logged, never thrown.
 */
@Global()
@Module({
  providers: [
    {
      provide: Redis,
      inject: [RedisConfig, HealthRegistry],
      useFactory: (config: RedisConfig, health: HealthRegistry): Redis => {
        const redis = new Redis(config.REDIS_URL, {
          maxRetriesPerRequest: 3,
          // A server that accepts connections but never answers (paused, partitioned) fails commands
          // instead of hanging them; reconnects are tried at least every second.
          commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
          connectTimeout: REDIS_COMMAND_TIMEOUT_MS,
          retryStrategy: (times: number) => Math.min(1_000, 50 * times),
          enableAutoPipelining: true,
          lazyConnect: false,
        });
        const logger = new Logger('redis');
        let loggedAt = 0;
        redis.on('error', (error: unknown) => {
          const now = Date.now();
          if (now - loggedAt < ERROR_LOG_EVERY_MS) return;
          loggedAt = now;
          logger.warn({ err: error }, 'Redis connection error; reconnecting');
        });
        health.register('redis', async () => ({ ok: (await redis.ping()) === 'PONG' }));
        return redis;
      },
    },
    RedisLifecycle,
  ],
  exports: [Redis],
})
export class RedisModule {}
