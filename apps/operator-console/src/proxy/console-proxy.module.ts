import { Module } from '@nestjs/common';
import { ConsoleProxyMetrics } from './console-proxy.metrics';
import { ConsoleProxyService } from './console-proxy.service';

/** `/api/scheduler/*` and `/api/dispatcher/*`: the browser's API calls, passed on to the APIs. */
@Module({ providers: [ConsoleProxyMetrics, ConsoleProxyService] })
export class ConsoleProxyModule {}
