import {
  ArrayMaxSize,
  IsArray,
  IsNotEmpty,
  IsOptional,
  IsString,
  MaxLength,
  ValidateIf,
} from 'class-validator';

/**
 * What to send: either text (which may hold `{{variables}}` filled from the recipient's own
 * columns) or a provider template with positional parameters. Email uses `subject` too.
 */
export class MessageContentV1 {
  @ValidateIf((o: MessageContentV1) => o.templateName === undefined)
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  text?: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(512)
  templateName?: string;

  @IsOptional()
  @IsString()
  @MaxLength(16)
  templateLanguage?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(1024, { each: true })
  templateParameters?: string[];

  @IsOptional()
  @IsString()
  @MaxLength(998)
  subject?: string;
}
