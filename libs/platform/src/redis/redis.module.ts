import { Global, Inject, Injectable, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { RedisConfig } from '../config/common.config';
import { HealthRegistry } from '../health/health-registry';
import { createRedisClient, REDIS_CLIENT, type RedisClient } from './redis-client';
import { describeRedisFailure } from './redis-failure';
import { checkRedisAtStart } from './redis-startup';

/** Closes the shared connection last, after consumers that may still use it have stopped. */
@Injectable()
class RedisLifecycle implements OnApplicationShutdown {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: RedisClient) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit();
  }
}

/** A lost connection is logged at most this often (ioredis reports every reconnect attempt). */
const ERROR_LOG_EVERY_MS = 10_000;

/**
 * One connection per process (commands pipeline over it; a Cluster keeps one per node); inject
 * `REDIS_CLIENT` (type RedisClient). Start-up refuses a misconfiguration (credentials, TLS, the
 * wrong REDIS_MODE) with an error naming the setting; a Redis that is only down does not stop
 * start-up. While Redis is down, ioredis reconnects on its own; commands fail after
 * maxRetriesPerRequest reconnect attempts (callers decide: the sender's limiter fails closed, the
 * dispatcher's failure window fails open), readiness says `redis` not ok and names what failed, and
 * the connection's `error` events are logged, never thrown.
 */
@Global()
@Module({
  providers: [
    {
      provide: REDIS_CLIENT,
      inject: [RedisConfig, HealthRegistry],
      useFactory: async (config: RedisConfig, health: HealthRegistry): Promise<RedisClient> => {
        const redis = createRedisClient({ config });
        const tls = config.REDIS_URL.startsWith('rediss://');
        const logger = new Logger('redis');
        let loggedAt = 0;
        let lastError: unknown;
        redis.on('error', (error: unknown) => {
          lastError = error;
          const now = Date.now();
          if (now - loggedAt < ERROR_LOG_EVERY_MS) return;
          loggedAt = now;
          const { code, setting, reason } = describeRedisFailure(error, { tls });
          logger.warn({ err: error, code, setting }, `Redis connection error (${reason}); reconnecting`);
        });
        redis.on('ready', () => {
          lastError = undefined;
        });
        try {
          await checkRedisAtStart({ client: redis, config });
        } catch (error: unknown) {
          redis.disconnect();
          throw error;
        }
        health.register('redis', async () => {
          try {
            return { ok: (await redis.ping()) === 'PONG' };
          } catch (error: unknown) {
            const { reason, setting } = describeRedisFailure(lastError ?? error, { tls });
            return { ok: false, detail: `${reason} (check ${setting})` };
          }
        });
        return redis;
      },
    },
    RedisLifecycle,
  ],
  exports: [REDIS_CLIENT],
})
export class RedisModule {}
