import { ToInt } from '@ums/platform';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** GET /v1/credentials/{id}/rate: how many complete seconds of the series, the newest last. */
export class CredentialRateQueryDto {
  @IsOptional() @ToInt() @IsInt() @Min(1) @Max(3_600) seconds = 300;
}
