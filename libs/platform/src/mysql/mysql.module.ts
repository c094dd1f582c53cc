import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MysqlConfig } from '../config/common.config';
import { HealthRegistry } from '../health/health-registry';
import { buildDataSourceOptions } from './data-source-options';
import { mysqlSettingsFrom } from './mysql-settings.mapper';

/** TypeORM over mysql2 with synchronize off; the schema comes only from migrations. */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [MysqlConfig],
      useFactory: (config: MysqlConfig) => ({
        ...buildDataSourceOptions(mysqlSettingsFrom(config)),
        autoLoadEntities: true,
      }),
    }),
  ],
  providers: [
    {
      provide: 'MYSQL_HEALTH',
      inject: [DataSource, HealthRegistry],
      useFactory: (dataSource: DataSource, health: HealthRegistry): true => {
        health.register('mysql', async () => {
          await dataSource.query('SELECT 1');
          return { ok: true };
        });
        return true;
      },
    },
  ],
})
export class MysqlModule {}
