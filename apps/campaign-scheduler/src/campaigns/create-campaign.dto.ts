// class-transformer's @Type reads design metadata at class definition.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  IsDefined,
  IsEnum,
  IsInt,
  IsISO31661Alpha2,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { Channel, MessageContentV1 } from '@ums/contracts';
import { ApiExample, JsonSchemaRule } from '@ums/platform';
import { IsSingleLineText } from './single-line-text.validator';
import { IsCampaignPriority } from './campaign-priority.validator';

export enum ScheduleKind {
  Now = 'now',
  At = 'at',
  Cron = 'cron',
}

@JsonSchemaRule({
  fields: ['at', 'cron'],
  allOf: [
    { if: { properties: { kind: { const: 'at' } } }, then: { required: ['at'] } },
    { if: { properties: { kind: { const: 'cron' } } }, then: { required: ['cron'] } },
  ],
})
export class ScheduleDto {
  @IsEnum(ScheduleKind, { message: 'kind must be one of now, at, cron' })
  kind!: ScheduleKind;

  /**
   * For kind=at: an ISO 8601 time with a UTC offset (2026-12-01T09:00:00+01:00, or Z), at most
   * ONE_OFF_GRACE_MS ago; checked by the service (SCHEDULE_INVALID).
   */
  @ValidateIf((o: ScheduleDto) => o.kind === ScheduleKind.At)
  @IsString({ message: 'at must be an ISO 8601 time with a UTC offset' })
  @MaxLength(64)
  at?: string;

  /** For kind=cron: five fields (minute hour day month weekday), evaluated in timeZone. */
  @ValidateIf((o: ScheduleDto) => o.kind === ScheduleKind.Cron)
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  cron?: string;

  @IsOptional()
  @IsString()
  @MaxLength(64)
  timeZone?: string;
}

/** POST /v1/campaigns: the tenant is the caller's (requireTenant), never the body's. */
@ApiExample<CreateCampaignDto>({
  name: 'December newsletter',
  channel: Channel.Sms,
  credentialId: 'cred_01JD6W9X3R5T8Y1B4N7C0XKZ2B',
  template: { text: 'Hello {{name}}, our December offers are online.' },
  defaultCountry: 'DE',
  schedule: { kind: ScheduleKind.At, at: '2026-12-01T09:00:00+01:00', timeZone: 'Europe/Berlin' },
})
export class CreateCampaignDto {
  @IsString()
  @MaxLength(255)
  @IsSingleLineText()
  name!: string;

  @IsEnum(Channel, { message: 'channel must be one of whatsapp, sms, email' })
  channel!: Channel;

  @IsString()
  @Length(1, 64)
  credentialId!: string;

  /** Text with {{variables}} from the recipient's columns, or a provider template with parameters. */
  @IsDefined()
  @IsObject({ message: 'template must be an object' })
  @ValidateNested()
  @Type(() => MessageContentV1)
  template!: MessageContentV1;

  /** Country for phone numbers written without a country code. */
  @IsOptional()
  @IsISO31661Alpha2({ message: 'defaultCountry must be an ISO 3166-1 alpha-2 code' })
  defaultCountry?: string;

  @IsDefined()
  @IsObject({ message: 'schedule must be an object' })
  @ValidateNested()
  @Type(() => ScheduleDto)
  schedule!: ScheduleDto;

  /**
   * 1..10, default 1: the campaign's weight in its credential's fair share between the campaigns
   * sending on it (priority 2 gets twice the rate of priority 1), and the order of due runs.
   */
  @IsOptional()
  @IsCampaignPriority()
  priority?: number;
}

/** GET /v1/campaigns: the caller's tenant's campaigns (an operator's without X-Ums-Tenant: all). */
export class ListCampaignsQuery {
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(500) limit = 50;

  @IsOptional() @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'after must be a campaign id' }) after?: string;
}

export enum CampaignAction {
  Start = 'start',
  Pause = 'pause',
  Resume = 'resume',
  Stop = 'stop',
  Archive = 'archive',
}

export class CampaignActionParams {
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'campaignId must be a campaign id' })
  campaignId!: string;

  @IsEnum(CampaignAction, { message: 'action must be one of start, pause, resume, stop, archive' })
  action!: CampaignAction;
}
