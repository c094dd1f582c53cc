import { Body, Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import {
  AUDIENCE_IMPORT_LIST,
  AudienceErrorCode,
  CampaignErrorCode,
  HttpErrorCode,
  IMPORT_SUMMARY,
  REJECT_PAGE,
  Scope,
} from '@ums/contracts';
import {
  ApiAnswer,
  type ApiErrorMap,
  ApiErrors,
  ApiUpload,
  type ApiUploadSpec,
  Caller,
  InvalidInputError,
  mediaTypeOf,
  type Principal,
  Requires,
  UnsupportedMediaTypeError,
} from '@ums/platform';
import type { FastifyRequest } from 'fastify';
import {
  AudienceCampaignParams,
  AudienceImportParams,
  InlineImportDto,
  ListImportsQuery,
  RejectsQuery,
  UrlImportDto,
} from './audience.dto';
import type { AudienceImportView, ImportSummary, RejectView } from './audience-import.view';
import { AudienceImportService } from './audience-import.service';

const FILE_FIELD = 'file';

function fileMissing(): InvalidInputError {
  return InvalidInputError.field(
    AudienceErrorCode.FileMissing,
    FILE_FIELD,
    `send multipart/form-data with the CSV file in a file field named "${FILE_FIELD}"`,
  );
}

const CSV_UPLOAD: ApiUploadSpec = {
  field: FILE_FIELD,
  mediaType: 'text/csv',
  description:
    "A header line (the address column, e.g. phone or email, and the template's variables), then one recipient a line",
  example: 'phone,name\n+4915112345678,Ada\n+4915112345679,Grace\n',
};

/** Refusals of every import: the campaign (another tenant's is missing) and what its state allows. */
const IMPORT_REFUSALS: ApiErrorMap = {
  404: [CampaignErrorCode.NotFound],
  409: [
    CampaignErrorCode.NotEditable,
    CampaignErrorCode.TemplateUnusable,
    CampaignErrorCode.DefaultCountryInvalid,
  ],
};

const CSV_REFUSALS = [
  AudienceErrorCode.FileMissing,
  AudienceErrorCode.HeaderInvalid,
  AudienceErrorCode.ColumnsMissing,
  AudienceErrorCode.CsvMalformed,
  AudienceErrorCode.EncodingInvalid,
];

/**
 * A campaign's audience: imports from a CSV upload, a file URL or a list, their progress and rejects.
 * Only the caller's tenant's campaigns (an operator without X-Ums-Tenant: any); another tenant's
 * campaign answers 404 as a missing one, before anything about the request is looked at.
 */
@Controller('v1/campaigns/:campaignId/audience')
export class AudienceController {
  constructor(private readonly imports: AudienceImportService) {}

  /** Streams the upload into an import and answers with its summary once it is done. */
  @Requires(Scope.CampaignsWrite)
  @ApiUpload(CSV_UPLOAD)
  @ApiAnswer(IMPORT_SUMMARY)
  @ApiErrors({
    ...IMPORT_REFUSALS,
    400: CSV_REFUSALS,
    413: [AudienceErrorCode.TooLarge],
    503: [HttpErrorCode.ServiceShuttingDown],
  })
  @Post('csv')
  uploadCsv(
    @Caller() principal: Principal,
    @Param() params: AudienceCampaignParams,
    @Req() request: FastifyRequest,
  ): Promise<ImportSummary> {
    return this.imports.importCsv(params.campaignId, principal.tenantId, async () => {
      if (!request.isMultipart()) {
        throw new UnsupportedMediaTypeError(
          mediaTypeOf(request.headers['content-type'])?.type,
          `multipart/form-data with the CSV file in a field named "${FILE_FIELD}"`,
        );
      }
      const part = await request.file();
      if (part === undefined || part.fieldname !== FILE_FIELD) throw fileMissing();
      return part.file;
    });
  }

  /** Starts fetching the file in the background; poll the import for its progress. */
  @Requires(Scope.CampaignsWrite)
  @ApiAnswer(IMPORT_SUMMARY)
  @ApiErrors({
    ...IMPORT_REFUSALS,
    400: [AudienceErrorCode.UrlInvalid],
    503: [HttpErrorCode.ServiceShuttingDown],
  })
  @Post('url')
  @HttpCode(202)
  importUrl(
    @Caller() principal: Principal,
    @Param() params: AudienceCampaignParams,
    @Body() dto: UrlImportDto,
  ): Promise<ImportSummary> {
    return this.imports.startUrlImport(params.campaignId, principal.tenantId, dto.url, 'url');
  }

  @Requires(Scope.CampaignsWrite)
  @ApiAnswer(IMPORT_SUMMARY)
  @ApiErrors({
    ...IMPORT_REFUSALS,
    400: [AudienceErrorCode.RecipientsInvalid],
    503: [HttpErrorCode.ServiceShuttingDown],
  })
  @Post('inline')
  importInline(
    @Caller() principal: Principal,
    @Param() params: AudienceCampaignParams,
    @Body() dto: InlineImportDto,
  ): Promise<ImportSummary> {
    return this.imports.importInline(params.campaignId, principal.tenantId, dto.recipients, 'inline');
  }

  @Requires(Scope.CampaignsRead)
  @ApiAnswer(AUDIENCE_IMPORT_LIST)
  @ApiErrors({ 404: [CampaignErrorCode.NotFound] })
  @Get('imports')
  async listImports(
    @Caller() principal: Principal,
    @Param() params: AudienceCampaignParams,
    @Query() query: ListImportsQuery,
  ): Promise<{ items: AudienceImportView[] }> {
    const items = await this.imports.listImports(
      params.campaignId,
      principal.tenantId,
      query.limit,
      query.before,
    );
    return { items };
  }

  @Requires(Scope.CampaignsRead)
  @ApiAnswer(IMPORT_SUMMARY)
  @ApiErrors({ 404: [CampaignErrorCode.NotFound, AudienceErrorCode.ImportNotFound] })
  @Get('imports/:importId')
  getImport(@Caller() principal: Principal, @Param() params: AudienceImportParams): Promise<ImportSummary> {
    return this.imports.getImport(params.campaignId, principal.tenantId, params.importId);
  }

  /** Rejected lines in line order, a keyset page at a time (`after` = the previous page's nextAfter). */
  @Requires(Scope.CampaignsRead)
  @ApiAnswer(REJECT_PAGE)
  @ApiErrors({ 404: [CampaignErrorCode.NotFound, AudienceErrorCode.ImportNotFound] })
  @Get('imports/:importId/rejects')
  rejects(
    @Caller() principal: Principal,
    @Param() params: AudienceImportParams,
    @Query() query: RejectsQuery,
  ): Promise<{ items: RejectView[]; nextAfter: number | null }> {
    return this.imports.rejects(params.campaignId, principal.tenantId, params.importId, {
      after: query.after,
      limit: query.limit,
    });
  }
}
