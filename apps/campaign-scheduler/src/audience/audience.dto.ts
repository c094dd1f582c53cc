import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { RecipientV1 } from '@ums/contracts';
import { ApiExample, ToInt } from '@ums/platform';

export const MAX_INLINE_RECIPIENTS = 10_000;
export const MAX_REJECTS_PAGE = 1_000;
export const MAX_IMPORTS_PAGE = 100;

const CAMPAIGN_ID = /^[A-Za-z0-9_-]{1,64}$/;
// A BIGINT UNSIGNED auto-increment id in decimal (values past the column's range simply find nothing).
const IMPORT_ID = /^[1-9][0-9]{0,19}$/;

export class AudienceCampaignParams {
  @Matches(CAMPAIGN_ID, { message: 'campaignId must be a campaign id' }) campaignId!: string;
}

export class AudienceImportParams extends AudienceCampaignParams {
  @Matches(IMPORT_ID, { message: 'importId must be an import id' }) importId!: string;
}

/** POST .../audience/url: the file is fetched from here (http or https, no redirects). */
@ApiExample<UrlImportDto>({ url: 'https://files.example.com/audiences/december.csv' })
export class UrlImportDto {
  @IsString()
  @MaxLength(2048)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false })
  url!: string;
}

/** POST .../audience/inline: recipients given in the request; line numbers are positions (1-based). */
@ApiExample<InlineImportDto>({
  recipients: [
    { address: '+4915112345678', variables: { name: 'Ada' } },
    { address: '+4915112345679', variables: { name: 'Grace' } },
  ],
})
export class InlineImportDto {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_INLINE_RECIPIENTS)
  @ValidateNested({ each: true })
  @Type(() => RecipientV1)
  recipients!: RecipientV1[];
}

export class ListImportsQuery {
  /** The id of the last import of the previous page (imports come newest first). */
  @IsOptional() @Matches(IMPORT_ID, { message: 'before must be an import id' }) before?: string;

  @IsOptional() @ToInt() @IsInt() @Min(1) @Max(MAX_IMPORTS_PAGE) limit = 20;
}

export class RejectsQuery {
  /** The `nextAfter` of the previous page: rejected lines after this line number. */
  @IsOptional() @ToInt() @IsInt() @Min(0) @Max(Number.MAX_SAFE_INTEGER) after = 0;

  @IsOptional() @ToInt() @IsInt() @Min(1) @Max(MAX_REJECTS_PAGE) limit = 100;
}
