import { Module } from '@nestjs/common';
import { SecretBox } from './secret-box';
import { SecretsConfig } from './secrets.config';

/** Provides the SecretBox built from SecretsConfig; the app lists SecretsConfig in its configs. */
@Module({
  providers: [
    {
      provide: SecretBox,
      inject: [SecretsConfig],
      useFactory: (config: SecretsConfig) => new SecretBox(config.keys()),
    },
  ],
  exports: [SecretBox],
})
export class SecretsModule {}
