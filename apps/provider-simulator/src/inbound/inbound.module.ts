import { Module } from '@nestjs/common';
import { CredentialsModule } from '../credentials/credentials.module';
import { InboundController } from './inbound.controller';
import { InboundService } from './inbound.service';

/** Replies from simulated recipients, delivered as the providers' inbound webhooks. */
@Module({
  imports: [CredentialsModule],
  controllers: [InboundController],
  providers: [InboundService],
})
export class InboundModule {}
