import { Channel } from '@ums/contracts';
import { ApiExample, ToInt } from '@ums/platform';
import {
  IsEnum,
  IsInt,
  IsISO31661Alpha2,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';

export const MAX_LISTS_PAGE = 100;
export const MAX_MEMBERS_PAGE = 1_000;

const LIST_ID = /^[A-Za-z0-9_-]{1,64}$/;
const LIST_ID_MESSAGE = 'must be a contact list id';
// A BIGINT UNSIGNED auto-increment id in decimal (values past the column's range simply find nothing).
const IMPORT_ID = /^[1-9][0-9]{0,19}$/;
const MEMBER_ID = /^(0|[1-9][0-9]{0,19})$/;

/** POST /v1/contact-lists. */
@ApiExample<CreateContactListDto>({ name: 'Newsletter DE', channel: Channel.Sms, defaultCountry: 'DE' })
export class CreateContactListDto {
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  @Matches(/^[^\p{Cc}]*$/u, { message: 'name must be one line of text' })
  name!: string;

  /** What the members' addresses are: phone numbers (sms, whatsapp) or e-mail addresses (email). */
  @IsEnum(Channel, { message: `channel must be one of ${Object.values(Channel).join(', ')}` })
  channel!: Channel;

  /** Reads phone numbers written without a country code (`0151 ...`) as numbers of this country. */
  @IsOptional()
  @IsISO31661Alpha2({ message: 'defaultCountry must be an ISO 3166-1 alpha-2 code' })
  defaultCountry?: string;
}

export class ContactListParams {
  @Matches(LIST_ID, { message: `id ${LIST_ID_MESSAGE}` }) id!: string;
}

export class ContactListImportParams extends ContactListParams {
  @Matches(IMPORT_ID, { message: 'importId must be an import id' }) importId!: string;
}

export class ListContactListsQuery {
  /** The `nextBefore` of the previous page (lists come newest first). */
  @IsOptional() @Matches(LIST_ID, { message: `before ${LIST_ID_MESSAGE}` }) before?: string;

  @IsOptional() @ToInt() @IsInt() @Min(1) @Max(MAX_LISTS_PAGE) limit = 20;
}

export class MembersQuery {
  /** The `nextAfter` of the previous page: members after this id. */
  @IsOptional() @Matches(MEMBER_ID, { message: 'after must be a member id' }) after = '0';

  @IsOptional() @ToInt() @IsInt() @Min(1) @Max(MAX_MEMBERS_PAGE) limit = 100;
}

export class CampaignListParams {
  @Matches(LIST_ID, { message: 'campaignId must be a campaign id' }) campaignId!: string;
}

/**
 * POST /v1/campaigns/{campaignId}/audience/lists: the list's members (in the segment, when one is
 * given) join the campaign's audience.
 */
@ApiExample<UseContactListDto>({
  listId: 'lst_01JD6WB2E8T9P4R7Q0M3X5Z6N1',
  segment: { attributes: { city: 'Berlin', plan: ['gold', 'silver'] } },
})
export class UseContactListDto {
  @Matches(LIST_ID, { message: `listId ${LIST_ID_MESSAGE}` }) listId!: string;

  /**
   * `{ "attributes": { "<variable>": "<value>" | ["<value>", ...] } }`: members whose variable equals
   * the value (or one of the values), every attribute at once; at most 10 attributes, names of
   * letters, digits and _. Without it, every member.
   */
  @IsOptional() @IsObject() segment?: Record<string, unknown>;
}
