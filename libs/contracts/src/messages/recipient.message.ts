import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsStringRecord } from '../validation/is-string-record.validator';

/** A recipient as a producer names it: a phone number or e-mail address and its own variables. */
export class RecipientV1 {
  @IsString()
  @IsNotEmpty()
  @MaxLength(320)
  address!: string;

  @IsOptional()
  @IsStringRecord(50, 1024)
  variables?: Record<string, string>;
}
