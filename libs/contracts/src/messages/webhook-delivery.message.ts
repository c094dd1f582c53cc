import {
  IsInt,
  IsISO8601,
  IsNotEmpty,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';

/** One event owed to one subscriber; carried by the subscriber webhook retry tiers. */
export class WebhookDeliveryV1 {
  @IsString()
  @Length(1, 64)
  deliveryId!: string;

  @IsString()
  @Length(1, 64)
  subscriberId!: string;

  /** Sent as `webhook-id`: stable across retries so subscribers can dedupe. */
  @IsString()
  @Length(1, 200)
  eventId!: string;

  @IsString()
  @Length(1, 64)
  eventType!: string;

  /** The JSON body exactly as it is signed and posted: an object, so it can also go into a batch body. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(1_000_000)
  @Matches(/^\{[\s\S]*\}$/, { message: 'payload must be a JSON object' })
  payload!: string;

  @IsInt()
  @Min(1)
  @Max(100)
  attempt!: number;

  @IsISO8601({ strict: true })
  firstAttemptAt!: string;
}
