import { Body, Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { Scope } from '@ums/contracts';
import { InvalidInputError, Requires } from '@ums/platform';
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
    'AUDIENCE_FILE_MISSING',
    FILE_FIELD,
    `send multipart/form-data with the CSV file in a file field named "${FILE_FIELD}"`,
  );
}

/** A campaign's audience: imports from a CSV upload, a file URL or a list, their progress and rejects. */
@Controller('v1/campaigns/:campaignId/audience')
export class AudienceController {
  constructor(private readonly imports: AudienceImportService) {}

  /** Streams the upload into an import and answers with its summary once it is done. */
  @Requires(Scope.CampaignsWrite)
  @Post('csv')
  uploadCsv(@Param() params: AudienceCampaignParams, @Req() request: FastifyRequest): Promise<ImportSummary> {
    if (!request.isMultipart()) throw fileMissing();
    return this.imports.importCsv(params.campaignId, async () => {
      const part = await request.file();
      if (part === undefined || part.fieldname !== FILE_FIELD) throw fileMissing();
      return part.file;
    });
  }

  /** Starts fetching the file in the background; poll the import for its progress. */
  @Requires(Scope.CampaignsWrite)
  @Post('url')
  @HttpCode(202)
  importUrl(@Param() params: AudienceCampaignParams, @Body() dto: UrlImportDto): Promise<ImportSummary> {
    return this.imports.startUrlImport(params.campaignId, dto.url, 'url');
  }

  @Requires(Scope.CampaignsWrite)
  @Post('inline')
  importInline(
    @Param() params: AudienceCampaignParams,
    @Body() dto: InlineImportDto,
  ): Promise<ImportSummary> {
    return this.imports.importInline(params.campaignId, dto.recipients, 'inline');
  }

  @Requires(Scope.CampaignsRead)
  @Get('imports')
  async listImports(
    @Param() params: AudienceCampaignParams,
    @Query() query: ListImportsQuery,
  ): Promise<{ items: AudienceImportView[] }> {
    return { items: await this.imports.listImports(params.campaignId, query.limit, query.before) };
  }

  @Requires(Scope.CampaignsRead)
  @Get('imports/:importId')
  getImport(@Param() params: AudienceImportParams): Promise<ImportSummary> {
    return this.imports.getImport(params.campaignId, params.importId);
  }

  /** Rejected lines in line order, a keyset page at a time (`after` = the previous page's nextAfter). */
  @Requires(Scope.CampaignsRead)
  @Get('imports/:importId/rejects')
  rejects(
    @Param() params: AudienceImportParams,
    @Query() query: RejectsQuery,
  ): Promise<{ items: RejectView[]; nextAfter: number | null }> {
    return this.imports.rejects(params.campaignId, params.importId, query.after, query.limit);
  }
}
