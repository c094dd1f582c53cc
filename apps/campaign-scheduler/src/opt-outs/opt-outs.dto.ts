import { Channel } from '@ums/contracts';
import { ToInt } from '@ums/platform';
import {
  IsEnum,
  IsInt,
  IsISO31661Alpha2,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';

const CHANNELS = Object.values(Channel).join(', ');
const CHANNEL_MESSAGE = `channel must be one of ${CHANNELS}`;
const COUNTRY_MESSAGE = 'defaultCountry must be an ISO 3166-1 alpha-2 code';

/** Reads numbers written without a country code (`0151 ...`), as a campaign's defaultCountry does. */
export class OptOutCountryDto {
  @IsOptional()
  @IsISO31661Alpha2({ message: COUNTRY_MESSAGE })
  defaultCountry?: string;
}

/** GET /v1/opt-outs: the tenant's opt-outs in (channel, address) order, a keyset page at a time. */
export class ListOptOutsDto extends OptOutCountryDto {
  @IsOptional() @IsEnum(Channel, { message: CHANNEL_MESSAGE }) channel?: Channel;

  /** One address, in any spelling its channel's normalizer reads (`+49 151 ...` finds `+49151...`). */
  @IsOptional() @IsString() @MinLength(1) @MaxLength(320) address?: string;

  @IsOptional() @ToInt() @IsInt() @Min(1) @Max(1000) limit = 100;

  /** The `nextAfter` of the previous page: `<channel>:<address>`. */
  @IsOptional()
  @Matches(new RegExp(`^(${Object.values(Channel).join('|')}):.{1,320}$`), {
    message: 'after must be the nextAfter of the previous page (<channel>:<address>)',
  })
  after?: string;
}

/** `/v1/opt-outs/:channel/:address`: the address in any spelling its channel's normalizer reads. */
export class OptOutParamsDto {
  @IsEnum(Channel, { message: CHANNEL_MESSAGE }) channel!: Channel;

  @IsString() @MinLength(1) @MaxLength(320) address!: string;
}

/** GET /v1/opt-outs/export.csv: everything, or one channel's. */
export class OptOutExportDto {
  @IsOptional() @IsEnum(Channel, { message: CHANNEL_MESSAGE }) channel?: Channel;
}
