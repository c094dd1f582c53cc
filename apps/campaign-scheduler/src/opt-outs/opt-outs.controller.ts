import {
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Put,
  Query,
  Req,
  StreamableFile,
} from '@nestjs/common';
import {
  AudienceErrorCode,
  HttpErrorCode,
  OPT_OUT_IMPORT_SUMMARY,
  OPT_OUT_PAGE,
  OPT_OUT_VIEW,
  type OptOutImportSummary,
  type OptOutPage,
  type OptOutView,
  OptOutErrorCode,
  Scope,
} from '@ums/contracts';
import {
  ApiAnswer,
  ApiErrors,
  ApiFileAnswer,
  ApiUpload,
  Caller,
  InvalidInputError,
  mediaTypeOf,
  type Principal,
  Requires,
  requireTenant,
  UnsupportedMediaTypeError,
} from '@ums/platform';
import type { FastifyRequest } from 'fastify';
import { ListOptOutsDto, OptOutCountryDto, OptOutExportDto, OptOutParamsDto } from './opt-outs.dto';
import { OptOutsService } from './opt-outs.service';

const FILE_FIELD = 'file';
const TENANT = HttpErrorCode.TenantRequired;

/**
 * The caller's tenant's opt-outs (an operator names the tenant with X-Ums-Tenant): sends on the
 * channel to the address are skipped, in bulk runs and single sends alike. Addresses may be written
 * in any spelling their channel's normalizer reads; they are stored and answered normalized.
 */
@Controller('v1/opt-outs')
export class OptOutsController {
  constructor(private readonly optOuts: OptOutsService) {}

  @Requires(Scope.OptOutsRead)
  @ApiAnswer(OPT_OUT_PAGE)
  @ApiErrors({ 400: [TENANT, OptOutErrorCode.AddressInvalid] })
  @Get()
  list(@Caller() principal: Principal, @Query() query: ListOptOutsDto): Promise<OptOutPage> {
    return this.optOuts.list(requireTenant(principal), query);
  }

  /** Every opt-out (of one channel, with `channel`) as CSV: channel,address,source,createdAt. */
  @Requires(Scope.OptOutsRead)
  @ApiFileAnswer(
    'text/csv',
    'every opt-out of the tenant, one row each; it imports again as it is',
    'channel,address,source,createdAt\nsms,+4915112345678,inbound:twilio,2026-11-24T10:00:00.000Z\n',
  )
  @ApiErrors({ 400: [TENANT] })
  @Get('export.csv')
  exportCsv(@Caller() principal: Principal, @Query() query: OptOutExportDto): StreamableFile {
    const csv = this.optOuts.exportCsv(requireTenant(principal), query.channel);
    return new StreamableFile(csv, {
      type: 'text/csv; charset=utf-8',
      disposition: 'attachment; filename="opt-outs.csv"',
    });
  }

  /** A CSV upload (multipart, field `file`): header channel,address[,source]; answers once the file is in. */
  @Requires(Scope.OptOutsWrite)
  @ApiUpload({
    field: FILE_FIELD,
    mediaType: 'text/csv',
    description:
      'A header line with channel and address (and optionally source) columns, then one opt-out a line',
    example: 'channel,address,source\nsms,+49 151 12345678,crm\nemail,ana@example.com,\n',
  })
  @ApiAnswer(OPT_OUT_IMPORT_SUMMARY)
  @ApiErrors({
    400: [
      TENANT,
      OptOutErrorCode.FileMissing,
      OptOutErrorCode.HeaderInvalid,
      AudienceErrorCode.CsvMalformed,
      AudienceErrorCode.EncodingInvalid,
    ],
    413: [OptOutErrorCode.TooLarge],
    503: [HttpErrorCode.ServiceShuttingDown],
  })
  @Post('import')
  @HttpCode(200)
  async importCsv(
    @Caller() principal: Principal,
    @Query() query: OptOutCountryDto,
    @Req() request: FastifyRequest,
  ): Promise<OptOutImportSummary> {
    const tenantId = requireTenant(principal);
    if (!request.isMultipart()) {
      throw new UnsupportedMediaTypeError(
        mediaTypeOf(request.headers['content-type'])?.type,
        `multipart/form-data with the CSV file in a field named "${FILE_FIELD}"`,
      );
    }
    const part = await request.file();
    if (part === undefined || part.fieldname !== FILE_FIELD) {
      throw InvalidInputError.field(
        OptOutErrorCode.FileMissing,
        FILE_FIELD,
        `send multipart/form-data with the CSV file in a file field named "${FILE_FIELD}"`,
      );
    }
    return this.optOuts.importCsv(tenantId, query.defaultCountry, part.file);
  }

  /** Opts the address out (source `api`); one that already is stays as it was recorded. */
  @Requires(Scope.OptOutsWrite)
  @ApiAnswer(OPT_OUT_VIEW)
  @ApiErrors({ 400: [TENANT, OptOutErrorCode.AddressInvalid] })
  @Put(':channel/:address')
  add(
    @Caller() principal: Principal,
    @Param() params: OptOutParamsDto,
    @Query() query: OptOutCountryDto,
  ): Promise<OptOutView> {
    return this.optOuts.add(requireTenant(principal), params.channel, params.address, query.defaultCountry);
  }

  /** Opts the address back in; 404 when it was not opted out. */
  @Requires(Scope.OptOutsWrite)
  @ApiErrors({ 400: [TENANT, OptOutErrorCode.AddressInvalid], 404: [OptOutErrorCode.NotFound] })
  @Delete(':channel/:address')
  @HttpCode(204)
  async remove(
    @Caller() principal: Principal,
    @Param() params: OptOutParamsDto,
    @Query() query: OptOutCountryDto,
  ): Promise<void> {
    await this.optOuts.remove(requireTenant(principal), params.channel, params.address, query.defaultCountry);
  }
}
