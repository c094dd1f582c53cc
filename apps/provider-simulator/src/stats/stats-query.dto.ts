import { IsOptional, Matches } from 'class-validator';
import { CREDENTIAL_ID_PATTERN } from '../credentials/credential-settings.dto';

export class StatsQueryDto {
  @IsOptional() @Matches(CREDENTIAL_ID_PATTERN) credentialId?: string;
}
