import { type DynamicModule, Module } from '@nestjs/common';
import { type ConfigClass, loadConfigs } from './config-loader';
import { type EnvSource, processEnv } from './env-source';

/**
 * Validates the listed config classes once, at module construction (so start-up fails
 * before anything connects), and provides each instance under its own class as token.
 */
@Module({})
export class ConfigModule {
  static forRoot(classes: readonly ConfigClass[], env: EnvSource = processEnv()): DynamicModule {
    const loaded = loadConfigs(classes, env);
    const providers = [...loaded.entries()].map(([cls, value]) => ({ provide: cls, useValue: value }));
    return { module: ConfigModule, global: true, providers, exports: providers.map((p) => p.provide) };
  }
}
