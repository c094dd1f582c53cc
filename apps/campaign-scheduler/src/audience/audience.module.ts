import { Module } from '@nestjs/common';
import { AudienceController } from './audience.controller';
import { AudienceRepository } from './audience.repository';
import { AudienceImportService } from './audience-import.service';
import { AudienceUrlFetcher } from './audience-url.fetcher';

export type { ImportSummary } from './audience-import.view';

/** Audience imports (CSV upload, file URL, inline list) into contacts, with per-line rejects. */
@Module({
  controllers: [AudienceController],
  providers: [AudienceRepository, AudienceImportService, AudienceUrlFetcher],
  exports: [AudienceImportService, AudienceUrlFetcher],
})
export class AudienceModule {}
