import { Module } from '@nestjs/common';
import { CredentialsModule } from '../credentials/credentials.module';
import { MessageRecords } from './message-records.service';

/** The accepted sends, for the providers' status lookups. */
@Module({
  imports: [CredentialsModule],
  providers: [MessageRecords],
  exports: [MessageRecords],
})
export class RecordsModule {}
