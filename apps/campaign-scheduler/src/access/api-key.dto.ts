import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsIn,
  IsISO8601,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
} from 'class-validator';
import { ALL_SCOPES, Scope } from '@ums/contracts';
import { ApiExample } from '@ums/platform';

@ApiExample<CreateApiKeyDto>({
  name: 'billing-service prod',
  scopes: [Scope.CampaignsRead, Scope.MessagesSend],
  expiresAt: '2027-06-30T00:00:00Z',
})
export class CreateApiKeyDto {
  /** What the key is for, shown in lists (`billing-service prod`). */
  @IsString()
  @Length(1, 100)
  @Matches(/^\P{Cc}+$/u, { message: 'name must not contain control characters' })
  name!: string;

  /** Scopes of the new key: at most the caller's own; all of the caller's when left out. */
  @IsOptional()
  @ArrayMinSize(1)
  @ArrayMaxSize(ALL_SCOPES.length)
  @ArrayUnique()
  @IsIn(ALL_SCOPES, { each: true, message: `scopes must each be one of ${ALL_SCOPES.join(', ')}` })
  scopes?: Scope[];

  /** When the key stops working, with a UTC offset; never when left out. */
  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true })
  @Matches(/(Z|[+-]\d{2}:\d{2})$/, { message: 'expiresAt must carry a UTC offset (Z or +hh:mm)' })
  expiresAt?: string;
}

export class ListApiKeysDto {
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(500) limit = 100;

  @IsOptional()
  @Matches(/^key_[0-9A-HJKMNP-TV-Z]{26}$/, { message: 'after must be a key id' })
  after?: string;
}

export class ApiKeyParamsDto {
  @Matches(/^key_[0-9A-HJKMNP-TV-Z]{26}$/, { message: 'id must be a key id (key_...)' })
  id!: string;
}
