import { ApiKeyErrorCode } from './api-key-error-code.enum';
import { AudienceErrorCode } from './audience-error-code.enum';
import { AuthErrorCode } from './auth-error-code.enum';
import { CallbackErrorCode } from './callback-error-code.enum';
import { CampaignErrorCode } from './campaign-error-code.enum';
import { CredentialErrorCode } from './credential-error-code.enum';
import { CreditErrorCode } from './credit-error-code.enum';
import { DeadLetterErrorCode } from './dead-letter-error-code.enum';
import { GatewayErrorCode } from './gateway-error-code.enum';
import { HttpErrorCode } from './http-error-code.enum';
import { IdempotencyErrorCode } from './idempotency-error-code.enum';
import { LiveErrorCode } from './live-error-code.enum';
import { DecodeErrorCode, MessageHandlingErrorCode } from './message-handling-error-code.enum';
import { OptOutErrorCode } from './opt-out-error-code.enum';
import { ContactListErrorCode } from './contact-list-error-code.enum';
import { RateLimitErrorCode } from './rate-limit-error-code.enum';
import { MessageErrorCode, RunErrorCode } from './run-error-code.enum';
import { SendOutcomeCode } from './send-outcome-code.enum';
import {
  ConfigErrorCode,
  KafkaErrorCode,
  MysqlErrorCode,
  RedisErrorCode,
  SecretErrorCode,
} from './startup-error-code.enum';
import { DeliveryErrorCode, SubscriberErrorCode } from './webhook-error-code.enum';

/** Every error code our services raise, store or answer with (not those of MySQL, Kafka, Node, providers). */
export type ErrorCode =
  | HttpErrorCode
  | AuthErrorCode
  | CampaignErrorCode
  | AudienceErrorCode
  | RunErrorCode
  | MessageErrorCode
  | CredentialErrorCode
  | CreditErrorCode
  | ApiKeyErrorCode
  | OptOutErrorCode
  | ContactListErrorCode
  | IdempotencyErrorCode
  | DeadLetterErrorCode
  | SubscriberErrorCode
  | DeliveryErrorCode
  | CallbackErrorCode
  | GatewayErrorCode
  | ConfigErrorCode
  | KafkaErrorCode
  | MysqlErrorCode
  | RedisErrorCode
  | SecretErrorCode
  | DecodeErrorCode
  | MessageHandlingErrorCode
  | SendOutcomeCode
  | RateLimitErrorCode
  | LiveErrorCode;

/**
 * A dead letter's `errorCode`: why the platform gave up on a record (it did not decode, retries ran
 * out, a tier refused it), or the code of the NonRetryableError its handler refused it with, which
 * may be any of our codes (a send request is refused with the code the campaign API would answer).
 */
export type DeadLetterCauseCode = DecodeErrorCode | MessageHandlingErrorCode | ErrorCode;

/** One area of the catalogue: its enum, and the prefix all its codes carry when it has one. */
export interface ErrorCodeArea {
  readonly area: string;
  readonly name: string;
  readonly codes: Readonly<Record<string, ErrorCode>>;
  readonly prefix?: string;
}

/** The catalogue by area, in the order docs/error-codes.md lists it. */
export const ERROR_CODE_AREAS: readonly ErrorCodeArea[] = [
  { area: 'HTTP edge', name: 'HttpErrorCode', codes: HttpErrorCode },
  { area: 'Authentication', name: 'AuthErrorCode', codes: AuthErrorCode, prefix: 'AUTH_' },
  { area: 'Campaigns', name: 'CampaignErrorCode', codes: CampaignErrorCode },
  { area: 'Audience imports', name: 'AudienceErrorCode', codes: AudienceErrorCode, prefix: 'AUDIENCE_' },
  { area: 'Runs', name: 'RunErrorCode', codes: RunErrorCode, prefix: 'RUN_' },
  { area: 'Messages', name: 'MessageErrorCode', codes: MessageErrorCode, prefix: 'MESSAGE_' },
  { area: 'Credentials', name: 'CredentialErrorCode', codes: CredentialErrorCode, prefix: 'CREDENTIAL_' },
  { area: 'Credits', name: 'CreditErrorCode', codes: CreditErrorCode, prefix: 'CREDIT_' },
  { area: 'API keys', name: 'ApiKeyErrorCode', codes: ApiKeyErrorCode, prefix: 'API_KEY_' },
  { area: 'Opt-outs', name: 'OptOutErrorCode', codes: OptOutErrorCode, prefix: 'OPT_OUT_' },
  {
    area: 'Contact lists',
    name: 'ContactListErrorCode',
    codes: ContactListErrorCode,
    prefix: 'CONTACT_LIST_',
  },
  {
    area: 'Idempotency keys',
    name: 'IdempotencyErrorCode',
    codes: IdempotencyErrorCode,
    prefix: 'IDEMPOTENCY_',
  },
  { area: 'Dead letters (API)', name: 'DeadLetterErrorCode', codes: DeadLetterErrorCode },
  { area: 'Subscribers', name: 'SubscriberErrorCode', codes: SubscriberErrorCode, prefix: 'SUBSCRIBER_' },
  { area: 'Webhook deliveries', name: 'DeliveryErrorCode', codes: DeliveryErrorCode },
  { area: 'Provider callbacks', name: 'CallbackErrorCode', codes: CallbackErrorCode },
  { area: 'Operator console', name: 'GatewayErrorCode', codes: GatewayErrorCode, prefix: 'UPSTREAM_' },
  { area: 'Configuration', name: 'ConfigErrorCode', codes: ConfigErrorCode, prefix: 'CONFIG_' },
  { area: 'Kafka', name: 'KafkaErrorCode', codes: KafkaErrorCode, prefix: 'KAFKA_' },
  { area: 'MySQL', name: 'MysqlErrorCode', codes: MysqlErrorCode, prefix: 'MYSQL_' },
  { area: 'Redis', name: 'RedisErrorCode', codes: RedisErrorCode, prefix: 'REDIS_' },
  { area: 'Secrets', name: 'SecretErrorCode', codes: SecretErrorCode, prefix: 'SECRET_' },
  { area: 'Kafka message decoding', name: 'DecodeErrorCode', codes: DecodeErrorCode },
  { area: 'Kafka message handling', name: 'MessageHandlingErrorCode', codes: MessageHandlingErrorCode },
  { area: 'Send outcomes', name: 'SendOutcomeCode', codes: SendOutcomeCode },
  { area: 'Rate limiting', name: 'RateLimitErrorCode', codes: RateLimitErrorCode, prefix: 'RATE_LIMIT_' },
  { area: 'Live streams', name: 'LiveErrorCode', codes: LiveErrorCode, prefix: 'LIVE_' },
];

const ALL_CODES = new Set<string>(ERROR_CODE_AREAS.flatMap((a) => Object.values(a.codes)));

/** Whether a code read from outside (a row, a header, an answer) is one of ours. */
export function isErrorCode(value: string): value is ErrorCode {
  return ALL_CODES.has(value);
}
