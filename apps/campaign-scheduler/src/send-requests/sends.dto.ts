// class-transformer's @Type reads design metadata at class definition.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsEnum,
  IsISO31661Alpha2,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  Matches,
  MaxLength,
  registerDecorator,
  type ValidationArguments,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { Channel, MessageContentV1, RecipientV1 } from '@ums/contracts';
import { ApiExample, JsonSchemaRule, registerValidatorSchema } from '@ums/platform';
import { MAX_INLINE_RECIPIENTS } from '../audience/audience.dto';
import { IsSingleLineText } from '../campaigns/single-line-text.validator';

// A rule between two properties: no constraint on this property's own value (its JSON Schema is empty).
registerValidatorSchema('notWith', {});

/** The property may not be given together with `other`. */
function NotWith(other: string): PropertyDecorator {
  return (target: object, propertyName: string | symbol): void => {
    registerDecorator({
      name: 'notWith',
      target: target.constructor,
      propertyName: String(propertyName),
      constraints: [other],
      validator: {
        validate: (_value: unknown, args: ValidationArguments): boolean =>
          (args.object as Record<string, unknown>)[other] === undefined,
        defaultMessage: (args: ValidationArguments): string => `give ${args.property} or ${other}, not both`,
      },
    });
  };
}

/** What every send names: the channel, the credential sending it, the content and the phone default. */
class SendBaseDto {
  @IsEnum(Channel, { message: 'channel must be one of whatsapp, sms, email' })
  channel!: Channel;

  @IsString()
  @Length(1, 64)
  credentialId!: string;

  /** Text with {{variables}} from the recipient's variables, or a provider template with parameters. */
  @IsDefined()
  @IsObject({ message: 'content must be an object' })
  @ValidateNested()
  @Type(() => MessageContentV1)
  content!: MessageContentV1;

  /** Country for phone numbers written without a country code. */
  @IsOptional()
  @IsISO31661Alpha2({ message: 'defaultCountry must be an ISO 3166-1 alpha-2 code' })
  defaultCountry?: string;
}

/** POST /v1/messages: one message to one recipient, on the priority lane. The tenant is the caller's. */
@ApiExample<SendMessageDto>({
  channel: Channel.Sms,
  credentialId: 'cred_01JD6W9X3R5T8Y1B4N7C0XKZ2B',
  content: { text: 'Hello {{name}}, your order {{order}} has shipped.' },
  defaultCountry: 'DE',
  recipient: { address: '+4915112345678', variables: { name: 'Ada', order: '4711' } },
})
export class SendMessageDto extends SendBaseDto {
  @IsDefined()
  @IsObject({ message: 'recipient must be an object' })
  @ValidateNested()
  @Type(() => RecipientV1)
  recipient!: RecipientV1;
}

/** POST /v1/sends: a campaign to inline recipients or to the recipients of a CSV file at a URL. */
@JsonSchemaRule({
  fields: ['audienceUrl', 'recipients'],
  allOf: [{ oneOf: [{ required: ['recipients'] }, { required: ['audienceUrl'] }] }],
})
@ApiExample<BulkSendDto>({
  channel: Channel.Sms,
  credentialId: 'cred_01JD6W9X3R5T8Y1B4N7C0XKZ2B',
  content: { text: 'Hello {{name}}, our December offers are online.' },
  defaultCountry: 'DE',
  campaignName: 'December promo',
  recipients: [
    { address: '+4915112345678', variables: { name: 'Ada' } },
    { address: '+4915112345679', variables: { name: 'Grace' } },
  ],
  sendAt: '2026-12-01T09:00:00+01:00',
})
export class BulkSendDto extends SendBaseDto {
  @IsString()
  @MaxLength(200)
  @IsSingleLineText()
  campaignName!: string;

  @ValidateIf((o: BulkSendDto) => o.audienceUrl === undefined)
  @IsArray({ message: `recipients must be an array of 1 to ${MAX_INLINE_RECIPIENTS}, or give audienceUrl` })
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_INLINE_RECIPIENTS)
  @ValidateNested({ each: true })
  @Type(() => RecipientV1)
  recipients?: RecipientV1[];

  /** A CSV file fetched over http or https (no redirects), as `POST .../audience/url` takes it. */
  @ValidateIf((o: BulkSendDto) => o.recipients === undefined || o.audienceUrl !== undefined)
  @NotWith('recipients')
  @IsString()
  @MaxLength(2048)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false })
  audienceUrl?: string;

  /** Send at this time (ISO 8601 with its UTC offset) instead of now. */
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'sendAt must be an ISO 8601 time' })
  @Matches(/(Z|[+-]\d{2}:?\d{2})$/, { message: 'sendAt must name its UTC offset (Z or +01:00)' })
  sendAt?: string;
}
