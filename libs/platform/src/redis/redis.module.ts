import { Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
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

/** One ioredis connection per process (commands pipeline over it); inject `Redis`. */
@Global()
@Module({
  providers: [
    {
      provide: Redis,
      inject: [RedisConfig, HealthRegistry],
      useFactory: (config: RedisConfig, health: HealthRegistry): Redis => {
        const redis = new Redis(config.REDIS_URL, {
          maxRetriesPerRequest: 3,
          enableAutoPipelining: true,
          lazyConnect: false,
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
