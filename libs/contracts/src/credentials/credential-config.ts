import { Transform } from 'class-transformer';
import {
  IsOptional,
  IsString,
  IsUrl,
  isURL,
  Matches,
  MaxLength,
  registerDecorator,
  ValidateIf,
} from 'class-validator';
import { Provider } from '../enums/provider.enum';
import type { FieldIssue } from '../validation/field-issue';
import { validateMessage } from '../validation/decode-message';

const URL_OPTIONS = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };

/**
 * An absolute http(s) URL without query or fragment (a path prefix is allowed). Which base URLs a
 * deployment allows is checked apart from this shape (ProviderEndpointPolicy in @ums/domain).
 */
function IsBaseUrl(field: string): PropertyDecorator {
  return (target: object, key: string | symbol): void => {
    registerDecorator({
      name: 'isBaseUrl',
      target: target.constructor,
      propertyName: String(key),
      options: { message: `${field} must be an http(s) URL without query or fragment` },
      validator: {
        validate: (value: unknown): boolean =>
          typeof value === 'string' && isURL(value, URL_OPTIONS) && !/[?#]/.test(value),
      },
    });
  };
}

// Settings are stored as a flat JSON object of strings, numbers and booleans: ids typed as numbers
// (a phone number id pasted without quotes) are read as their decimal text.
const NumberAsText = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'number' ? String(value) : value));

/** `whatsapp-cloud`: the secret is the access token. */
export class WhatsAppCloudCredentialConfig {
  @IsBaseUrl('baseUrl') baseUrl!: string;

  @NumberAsText()
  @Matches(/^\d{1,32}$/, { message: 'phoneNumberId must be the numeric id of the business phone number' })
  phoneNumberId!: string;

  @IsOptional()
  @Matches(/^v\d{1,3}\.\d{1,3}$/, { message: 'apiVersion must look like v21.0' })
  apiVersion = 'v21.0';

  /** Language of templates whose content names none. */
  @IsOptional()
  @Matches(/^[a-z]{2,3}(_[A-Z]{2})?$/, { message: 'defaultLanguage must look like en or en_US' })
  defaultLanguage = 'en';
}

/** `twilio`: the secret is the auth token; Basic auth is accountSid:authToken. */
export class TwilioCredentialConfig {
  @IsBaseUrl('baseUrl') baseUrl!: string;

  @Matches(/^AC[0-9a-fA-F]{32}$/, { message: 'accountSid must be AC followed by 32 hex digits' })
  accountSid!: string;

  /** Sender number or alphanumeric id; required unless messagingServiceSid is given. */
  @ValidateIf((config: TwilioCredentialConfig) => config.messagingServiceSid === undefined)
  @IsString({ message: 'from is required unless messagingServiceSid is given' })
  @Matches(/^\S{1,64}$/, { message: 'from must be 1-64 characters without spaces' })
  from?: string;

  @IsOptional()
  @Matches(/^MG[0-9a-fA-F]{32}$/, { message: 'messagingServiceSid must be MG followed by 32 hex digits' })
  messagingServiceSid?: string;

  /** Where Twilio posts status callbacks (webhook-ingest); `ums_message_id` is appended per message. */
  @IsUrl(URL_OPTIONS, { message: 'statusCallbackUrl must be an http(s) URL' })
  @Matches(/^[^#]*$/, { message: 'statusCallbackUrl must not have a fragment' })
  statusCallbackUrl!: string;
}

/** `ses` (SES v2 API): the secret is `<accessKeyId>:<secretAccessKey>`. */
export class SesCredentialConfig {
  @IsBaseUrl('baseUrl') baseUrl!: string;

  @Matches(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, { message: 'region must be an AWS region such as eu-west-1' })
  region!: string;

  /** A verified address, optionally with a display name: `News <news@example.com>`. */
  @IsString({ message: 'fromAddress is required' })
  @MaxLength(320)
  @Matches(/^[^\s@]+@[^\s@]+$|^[^<>]*<[^\s@<>]+@[^\s@<>]+>$/, {
    message: 'fromAddress must be an e-mail address or Name <address>',
  })
  fromAddress!: string;

  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'configurationSet must be 1-64 of A-Z, a-z, 0-9, _ and -' })
  configurationSet?: string;
}

/**
 * `mitto` (SMS, one message per request): the secret is the API key; `from` is the sender ID (Mitto
 * refuses one outside 3-11 characters, or 3-14 digits, with responseCode 6: a permanent failure).
 */
export class MittoCredentialConfig {
  @IsBaseUrl('baseUrl') baseUrl!: string;

  @NumberAsText()
  @IsString({ message: 'from is required' })
  @Matches(/^\S{1,20}$/, { message: 'from must be 1-20 characters without spaces' })
  from!: string;
}

/** `simulator`: the secret (API key) is optional. */
export class SimulatorCredentialConfig {
  @IsBaseUrl('baseUrl') baseUrl!: string;
}

/** The settings class of each provider. */
export interface CredentialConfigs {
  [Provider.WhatsAppCloud]: WhatsAppCloudCredentialConfig;
  [Provider.Twilio]: TwilioCredentialConfig;
  [Provider.Ses]: SesCredentialConfig;
  [Provider.Mitto]: MittoCredentialConfig;
  [Provider.Simulator]: SimulatorCredentialConfig;
}

const CONFIG_CLASSES: { readonly [P in Provider]: new () => CredentialConfigs[P] } = {
  [Provider.WhatsAppCloud]: WhatsAppCloudCredentialConfig,
  [Provider.Twilio]: TwilioCredentialConfig,
  [Provider.Ses]: SesCredentialConfig,
  [Provider.Mitto]: MittoCredentialConfig,
  [Provider.Simulator]: SimulatorCredentialConfig,
};

export type CredentialConfigParse<P extends Provider> =
  | { readonly ok: true; readonly config: CredentialConfigs[P] }
  | { readonly ok: false; readonly issues: readonly FieldIssue[] };

/** Validates a credential's stored settings for its provider; issues name `config.<field>`. */
export function parseCredentialConfig<P extends Provider>(
  provider: P,
  raw: unknown,
): CredentialConfigParse<P> {
  const result = validateMessage<CredentialConfigs[P]>(CONFIG_CLASSES[provider], raw);
  if (result.ok) return { ok: true, config: result.value };
  return {
    ok: false,
    issues: result.issues.map((issue) => ({ field: `config.${issue.field}`, reason: issue.reason })),
  };
}

/** Why a decrypted secret cannot be used with this provider, or undefined when it can. */
export function secretProblem(provider: Provider, secret: string | undefined): string | undefined {
  if (provider === Provider.Simulator) return undefined;
  if (secret === undefined || secret === '') return `a ${provider} credential needs a secret`;
  if (provider === Provider.Ses && !/^[^:\s]+:\S+$/.test(secret)) {
    return 'an ses secret must be <accessKeyId>:<secretAccessKey>';
  }
  return undefined;
}
