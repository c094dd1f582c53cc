import { Module } from '@nestjs/common';
import { IdleConnectionsService } from './idle-connections.service';

/** What the console does when it stops, beyond the platform's drain (idle connections closed). */
@Module({ providers: [IdleConnectionsService] })
export class ShutdownModule {}
