import { Module } from '@nestjs/common';
import { AudienceModule } from '../audience/audience.module';
import { ContactListAudienceController } from './contact-list-audience.controller';
import { ContactListAudienceService } from './contact-list-audience.service';
import { ContactListImportService } from './contact-list-import.service';
import { ContactListImportsRepository } from './contact-list-imports.repository';
import { ContactListsController } from './contact-lists.controller';
import { ContactListsRepository } from './contact-lists.repository';
import { ContactListsService } from './contact-lists.service';

/** Reusable contact lists of a tenant, their imports, and their use as campaign audiences. */
@Module({
  imports: [AudienceModule],
  controllers: [ContactListsController, ContactListAudienceController],
  providers: [
    ContactListsRepository,
    ContactListImportsRepository,
    ContactListsService,
    ContactListImportService,
    ContactListAudienceService,
  ],
})
export class ContactListsModule {}
