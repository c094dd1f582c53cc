import { WEBHOOK_EVENT_TYPES, WEBHOOK_MAX_EVENTS_PER_REQUEST } from '@ums/domain';
import { ApiExample, JsonSchemaRule, ToInt } from '@ums/platform';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';

const EVENT_TYPE_REASON = `eventTypes must each be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`;

/**
 * POST /v1/subscribers, for the caller's tenant (its key's, or the operator's X-Ums-Tenant). URL rules
 * (https and a public address for public ones) are checked by the service.
 */
@ApiExample<CreateSubscriberDto>({
  url: 'https://hooks.example.com/ums',
  eventTypes: ['message.status', 'run.completed'],
  maxEventsPerRequest: 1,
})
export class CreateSubscriberDto {
  @IsString() @Length(1, 2048) url!: string;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length)
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENT_TYPES, { each: true, message: EVENT_TYPE_REASON })
  eventTypes!: string[];

  /** Only this campaign's status and run lifecycle events. */
  @IsOptional() @IsString() @Length(1, 64) campaignId?: string;

  /** An internal subscriber (our CRM, bots): allowed only where WEBHOOK_INTERNAL_SUBSCRIBERS_ALLOWED is on. */
  @IsOptional() @IsBoolean() internal?: boolean;

  /** Events per POST (default 1); above 1 every request is a `webhook.batch` of up to this many events. */
  @IsOptional() @IsInt() @Min(1) @Max(WEBHOOK_MAX_EVENTS_PER_REQUEST) maxEventsPerRequest?: number;
}

/** PATCH /v1/subscribers/:id; `campaignId: null` removes the campaign filter. */
@JsonSchemaRule({ fields: ['campaignId'], nullable: ['campaignId'] })
@ApiExample<UpdateSubscriberDto>({ eventTypes: ['message.status', 'message.inbound'], campaignId: null })
export class UpdateSubscriberDto {
  @IsOptional() @IsString() @Length(1, 2048) url?: string;

  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length)
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENT_TYPES, { each: true, message: EVENT_TYPE_REASON })
  eventTypes?: string[];

  @IsOptional() @ValidateIf((_, value) => value !== null) @IsString() @Length(1, 64) campaignId?:
    string | null;

  @IsOptional() @IsBoolean() internal?: boolean;

  @IsOptional() @IsInt() @Min(1) @Max(WEBHOOK_MAX_EVENTS_PER_REQUEST) maxEventsPerRequest?: number;
}

/** GET /v1/subscribers: the caller's tenant's (an operator without X-Ums-Tenant: every tenant's), keyset-paginated by id. */
export class ListSubscribersDto {
  @IsOptional() @ToInt() @IsInt() @Min(1) @Max(500) limit = 100;

  @IsOptional() @IsString() @MaxLength(64) after?: string;
}
