// class-transformer's @Type reads design metadata at class definition.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsStringRecord } from '@ums/contracts';
import { MAX_TEST_SEND_RECIPIENTS } from '@ums/domain';
import { ApiExample } from '@ums/platform';

/** One recipient: an address for the campaign's channel and its own variables. */
export class TestSendRecipientDto {
  /** A phone number (E.164, or national with the campaign's default country) or an e-mail address. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(320)
  to!: string;

  /** This recipient's variables; they win over the request's `variables`. */
  @IsOptional()
  @IsStringRecord(50, 1024)
  variables?: Record<string, string>;
}

/** POST /v1/campaigns/{campaignId}/test-sends: the campaign's content to 1 to 10 given recipients. */
@ApiExample<CreateTestSendDto>({
  recipients: [
    { to: '+4915112345678', variables: { name: 'Ada' } },
    { to: '0151 12345679', variables: { name: 'Grace' } },
  ],
  variables: { offer: 'December promo' },
})
export class CreateTestSendDto {
  @IsArray({ message: `recipients must be an array of 1 to ${MAX_TEST_SEND_RECIPIENTS} recipients` })
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_TEST_SEND_RECIPIENTS)
  @ValidateNested({ each: true })
  @Type(() => TestSendRecipientDto)
  recipients!: TestSendRecipientDto[];

  /** Variables for every recipient (a recipient's own win). */
  @IsOptional()
  @IsStringRecord(50, 1024)
  variables?: Record<string, string>;
}

export class TestSendCampaignParams {
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'campaignId must be a campaign id' })
  campaignId!: string;
}

export class TestSendParams extends TestSendCampaignParams {
  @Matches(/^\d{1,20}$/, { message: 'testSendId must be a decimal id' })
  testSendId!: string;
}

export class ListTestSendsQuery {
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(100) limit = 20;
  /** The last id of the previous page: the next page holds older test sends. */
  @IsOptional() @Matches(/^\d{1,20}$/, { message: 'after must be a test send id' }) after?: string;
}
