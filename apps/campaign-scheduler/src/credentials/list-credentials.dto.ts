import { ToInt } from '@ums/platform';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/** GET /v1/credentials: the caller's tenant's credentials (an operator's: every tenant's), keyset-paginated by id. */
export class ListCredentialsDto {
  @IsOptional() @ToInt() @IsInt() @Min(1) @Max(500) limit = 100;

  /** The `nextAfter` of the previous page. */
  @IsOptional() @IsString() @MaxLength(64) after?: string;
}
