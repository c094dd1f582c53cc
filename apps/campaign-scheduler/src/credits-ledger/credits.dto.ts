import { Channel } from '@ums/contracts';
import { ApiExample, JsonSchemaRule, ToInt } from '@ums/platform';
import {
  IsEnum,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateIf,
} from 'class-validator';

const CHANNEL_MESSAGE = `channel must be one of ${Object.values(Channel).join(', ')}`;
const LEDGER_KINDS = ['TOP_UP', 'RESERVE', 'REFUND', 'ADJUST'] as const;

/** The largest top-up: far below 2^53, so balances stay exact JSON numbers. */
export const MAX_TOP_UP = 1_000_000_000_000;
/** The largest price of one message (one SMS segment). */
export const MAX_PRICE = 1_000_000;
/** The largest daily or monthly message cap. */
export const MAX_QUOTA = 1_000_000_000_000;

/** Validates the field only when it is not null (null is a value of its own: no price, no cap). */
const UnlessNull = (): PropertyDecorator => ValidateIf((_dto: object, value: unknown) => value !== null);
/** Validates the field only when present and not null (left out: unchanged; null: no cap). */
const IfSet = (): PropertyDecorator =>
  ValidateIf((_dto: object, value: unknown) => value !== undefined && value !== null);

/** GET /v1/credits/ledger: newest first, a keyset page at a time. */
export class ListCreditLedgerDto {
  @IsOptional() @IsEnum(Channel, { message: CHANNEL_MESSAGE }) channel?: Channel;

  @IsOptional()
  @IsIn(LEDGER_KINDS, { message: `kind must be one of ${LEDGER_KINDS.join(', ')}` })
  kind?: (typeof LEDGER_KINDS)[number];

  /** The `next` of the previous page: entries older than this id. */
  @IsOptional() @Matches(/^\d{1,20}$/, { message: 'before must be a ledger entry id' }) before?: string;

  @IsOptional() @ToInt() @IsInt() @Min(1) @Max(500) limit = 100;
}

/** POST /v1/credits/top-ups: credits for the tenant named with X-Ums-Tenant. */
@ApiExample<TopUpCreditsDto>({ channel: Channel.Sms, amount: 100_000, reference: 'invoice-2026-11-0042' })
export class TopUpCreditsDto {
  @IsEnum(Channel, { message: CHANNEL_MESSAGE }) channel!: Channel;

  /** Credits to add: a positive integer. */
  @IsInt() @Min(1) @Max(MAX_TOP_UP) amount!: number;

  /** The top-up's idempotency key (an invoice or payment id): a repeated one credits nothing again. */
  @IsString()
  @Length(1, 128)
  @Matches(/^[\x21-\x7e]+$/, { message: 'reference must be printable ASCII without spaces' })
  reference!: string;
}

/** `/v1/credits/prices/:channel`. */
export class CreditChannelParamsDto {
  @IsEnum(Channel, { message: CHANNEL_MESSAGE }) channel!: Channel;
}

/** PUT /v1/credits/prices/{channel}: credits per message (per segment on SMS), or null: not metered. */
@JsonSchemaRule({ fields: ['price'], nullable: ['price'], allOf: [{ required: ['price'] }] })
@ApiExample<SetCreditPriceDto>({ price: 5 })
export class SetCreditPriceDto {
  /** A non-negative integer (0: metered, free), or null: sends on the channel spend no credits. */
  @UnlessNull() @IsInt() @Min(0) @Max(MAX_PRICE) price!: number | null;
}

/** PUT /v1/credits/quotas: messages per UTC day and month across channels; left out: unchanged; null: no cap. */
@JsonSchemaRule({ fields: ['dailyLimit', 'monthlyLimit'], nullable: ['dailyLimit', 'monthlyLimit'] })
@ApiExample<SetCreditQuotasDto>({ dailyLimit: 50_000, monthlyLimit: null })
export class SetCreditQuotasDto {
  @IfSet() @IsInt() @Min(1) @Max(MAX_QUOTA) dailyLimit?: number | null;

  @IfSet() @IsInt() @Min(1) @Max(MAX_QUOTA) monthlyLimit?: number | null;
}
