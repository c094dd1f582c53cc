import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import {
  AudienceErrorCode,
  CONTACT_LIST_IMPORT_SUMMARY,
  CONTACT_LIST_MEMBER_PAGE,
  CONTACT_LIST_PAGE,
  CONTACT_LIST_REJECT_PAGE,
  CONTACT_LIST_VIEW,
  ContactListErrorCode,
  type ContactListImportSummary,
  type ContactListMemberPage,
  type ContactListPage,
  type ContactListRejectPage,
  type ContactListView,
  HttpErrorCode,
  Scope,
} from '@ums/contracts';
import {
  ApiAnswer,
  ApiErrors,
  ApiUpload,
  Caller,
  Idempotent,
  InvalidInputError,
  mediaTypeOf,
  type Principal,
  Requires,
  requireTenant,
  UnsupportedMediaTypeError,
} from '@ums/platform';
import type { FastifyRequest } from 'fastify';
import { RejectsQuery, UrlImportDto } from '../audience/audience.dto';
import { ContactListImportService } from './contact-list-import.service';
import {
  ContactListImportParams,
  ContactListParams,
  CreateContactListDto,
  ListContactListsQuery,
  MembersQuery,
} from './contact-lists.dto';
import { ContactListsService } from './contact-lists.service';

const FILE_FIELD = 'file';

/**
 * The tenant's reusable contact lists: members imported once (CSV upload or file URL, validated as a
 * campaign's audience file), used by any number of campaigns (POST .../audience/lists). Another
 * tenant's list answers 404 as a missing one.
 */
@Controller('v1/contact-lists')
export class ContactListsController {
  constructor(
    private readonly lists: ContactListsService,
    private readonly imports: ContactListImportService,
  ) {}

  @Requires(Scope.ListsWrite)
  @ApiAnswer(CONTACT_LIST_VIEW)
  @ApiErrors({ 400: [HttpErrorCode.TenantRequired] })
  @Post()
  @Idempotent()
  create(@Caller() principal: Principal, @Body() dto: CreateContactListDto): Promise<ContactListView> {
    return this.lists.create({ ...dto, tenantId: requireTenant(principal) });
  }

  @Requires(Scope.ListsRead)
  @ApiAnswer(CONTACT_LIST_PAGE)
  @Get()
  list(@Caller() principal: Principal, @Query() query: ListContactListsQuery): Promise<ContactListPage> {
    return this.lists.list(principal.tenantId, query.limit, query.before);
  }

  @Requires(Scope.ListsRead)
  @ApiAnswer(CONTACT_LIST_VIEW)
  @ApiErrors({ 404: [ContactListErrorCode.NotFound] })
  @Get(':id')
  get(@Caller() principal: Principal, @Param() params: ContactListParams): Promise<ContactListView> {
    return this.lists.get(params.id, principal.tenantId);
  }

  /** Deletes the list and its members (campaigns that used it keep their audience). */
  @Requires(Scope.ListsWrite)
  @ApiErrors({ 404: [ContactListErrorCode.NotFound], 409: [ContactListErrorCode.ImportRunning] })
  @Delete(':id')
  @HttpCode(204)
  async delete(@Caller() principal: Principal, @Param() params: ContactListParams): Promise<void> {
    await this.lists.delete(params.id, principal.tenantId);
  }

  /** Members in id order, a keyset page at a time (`after` = the previous page's nextAfter). */
  @Requires(Scope.ListsRead)
  @ApiAnswer(CONTACT_LIST_MEMBER_PAGE)
  @ApiErrors({ 404: [ContactListErrorCode.NotFound] })
  @Get(':id/members')
  members(
    @Caller() principal: Principal,
    @Param() params: ContactListParams,
    @Query() query: MembersQuery,
  ): Promise<ContactListMemberPage> {
    return this.lists.members(params.id, principal.tenantId, { after: query.after, limit: query.limit });
  }

  /**
   * Imports members from a CSV upload (multipart, field `file`; answers once it is in) or, with a
   * JSON body `{ "url": ... }`, from a file URL (answers 202 at once; poll the import).
   */
  @Requires(Scope.ListsWrite)
  @ApiUpload({
    field: FILE_FIELD,
    mediaType: 'text/csv',
    description:
      "A header line (the address column of the list's channel, e.g. phone or email, then any variables), then one member a line",
    example: 'phone,name,city\n+4915112345678,Ada,Berlin\n+4915112345679,Grace,Hamburg\n',
  })
  @ApiAnswer(CONTACT_LIST_IMPORT_SUMMARY)
  @ApiErrors({
    400: [
      AudienceErrorCode.FileMissing,
      AudienceErrorCode.HeaderInvalid,
      AudienceErrorCode.CsvMalformed,
      AudienceErrorCode.EncodingInvalid,
    ],
    404: [ContactListErrorCode.NotFound],
    413: [AudienceErrorCode.TooLarge],
    503: [HttpErrorCode.ServiceShuttingDown],
  })
  @Post(':id/imports')
  importCsv(
    @Caller() principal: Principal,
    @Param() params: ContactListParams,
    @Req() request: FastifyRequest,
  ): Promise<ContactListImportSummary> {
    return this.imports.importCsv(params.id, principal.tenantId, async () => {
      if (!request.isMultipart()) {
        throw new UnsupportedMediaTypeError(
          mediaTypeOf(request.headers['content-type'])?.type,
          `multipart/form-data with the CSV file in a field named "${FILE_FIELD}"`,
        );
      }
      const part = await request.file();
      if (part === undefined || part.fieldname !== FILE_FIELD) {
        throw InvalidInputError.field(
          AudienceErrorCode.FileMissing,
          FILE_FIELD,
          `send multipart/form-data with the CSV file in a file field named "${FILE_FIELD}"`,
        );
      }
      return part.file;
    });
  }

  /** Starts fetching the file in the background; poll the import for its progress. */
  @Requires(Scope.ListsWrite)
  @ApiAnswer(CONTACT_LIST_IMPORT_SUMMARY)
  @ApiErrors({
    400: [AudienceErrorCode.UrlInvalid],
    404: [ContactListErrorCode.NotFound],
    503: [HttpErrorCode.ServiceShuttingDown],
  })
  @Post(':id/imports/url')
  @HttpCode(202)
  importUrl(
    @Caller() principal: Principal,
    @Param() params: ContactListParams,
    @Body() dto: UrlImportDto,
  ): Promise<ContactListImportSummary> {
    return this.imports.startUrlImport(params.id, principal.tenantId, dto.url);
  }

  @Requires(Scope.ListsRead)
  @ApiAnswer(CONTACT_LIST_IMPORT_SUMMARY)
  @ApiErrors({ 404: [ContactListErrorCode.NotFound, ContactListErrorCode.ImportNotFound] })
  @Get(':id/imports/:importId')
  getImport(
    @Caller() principal: Principal,
    @Param() params: ContactListImportParams,
  ): Promise<ContactListImportSummary> {
    return this.imports.summary(params.id, params.importId, principal.tenantId);
  }

  /** Rejected lines in line order, a keyset page at a time (`after` = the previous page's nextAfter). */
  @Requires(Scope.ListsRead)
  @ApiAnswer(CONTACT_LIST_REJECT_PAGE)
  @ApiErrors({ 404: [ContactListErrorCode.NotFound, ContactListErrorCode.ImportNotFound] })
  @Get(':id/imports/:importId/rejects')
  rejects(
    @Caller() principal: Principal,
    @Param() params: ContactListImportParams,
    @Query() query: RejectsQuery,
  ): Promise<ContactListRejectPage> {
    return this.imports.rejects(params.id, params.importId, principal.tenantId, {
      after: query.after,
      limit: query.limit,
    });
  }
}
