import { Module } from '@nestjs/common';
import { MessageArchiveMetrics } from './message-archive.metrics';
import { MessageArchiveRepository } from './message-archive.repository';
import { MessageArchiveService } from './message-archive.service';

/** Message retention: moves messages past MESSAGE_RETENTION_MS to `messages_archive` (one replica at a time). */
@Module({
  providers: [MessageArchiveRepository, MessageArchiveService, MessageArchiveMetrics],
})
export class MessageRetentionModule {}
