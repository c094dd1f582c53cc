import { Expose } from 'class-transformer';
import { IsArray, IsBoolean, registerDecorator, type ValidationArguments } from 'class-validator';
import { Provider } from '@ums/contracts';
import { DEFAULT_PROVIDER_ENDPOINTS, parseEndpointPattern, ProviderEndpointPolicy } from '@ums/domain';
import { ToBool, ToList } from '../config/env-transforms';

function firstProblem(value: unknown): string | undefined {
  if (!Array.isArray(value)) return 'must be a comma-separated list of base URLs';
  for (const entry of value as unknown[]) {
    if (typeof entry !== 'string') return 'must be a comma-separated list of base URLs';
    const parsed = parseEndpointPattern(entry);
    if (!parsed.ok) return parsed.reason;
  }
  return undefined;
}

/** A comma-separated list of allowlist entries (`scheme://host[:port][/path]`, `*` rules in @ums/domain). */
function IsEndpointList(): PropertyDecorator {
  return (target: object, propertyName: string | symbol): void => {
    registerDecorator({
      name: 'isEndpointList',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown): boolean => firstProblem(value) === undefined,
        defaultMessage: (args: ValidationArguments): string => firstProblem(args.value) ?? 'is invalid',
      },
    });
  };
}

const defaults = (provider: Provider): string[] => [...DEFAULT_PROVIDER_ENDPOINTS[provider]];

/**
 * Where provider requests may go, per provider: the base URLs a credential may pick (its
 * `config.baseUrl`), checked when a credential is created or changed (campaign-scheduler) and
 * again before every send (notification-sender). Each defaults to the provider's public API. An
 * empty list allows no credential of that provider.
 */
export class ProviderEndpointsConfig {
  @Expose() @ToList() @IsArray() @IsEndpointList() PROVIDER_ENDPOINTS_WHATSAPP_CLOUD = defaults(
    Provider.WhatsAppCloud,
  );
  @Expose() @ToList() @IsArray() @IsEndpointList() PROVIDER_ENDPOINTS_TWILIO = defaults(Provider.Twilio);
  @Expose() @ToList() @IsArray() @IsEndpointList() PROVIDER_ENDPOINTS_SES = defaults(Provider.Ses);
  @Expose() @ToList() @IsArray() @IsEndpointList() PROVIDER_ENDPOINTS_MITTO = defaults(Provider.Mitto);
  @Expose() @ToList() @IsArray() @IsEndpointList() PROVIDER_ENDPOINTS_SIMULATOR = defaults(
    Provider.Simulator,
  );
  /** The `simulator` provider (a test tool) is refused unless this is on: never on a production deployment. */
  @Expose() @ToBool() @IsBoolean() PROVIDER_SIMULATOR_ENABLED = false;

  /** The rules these settings make (validated at start-up, so building them cannot fail). */
  policy(): ProviderEndpointPolicy {
    return new ProviderEndpointPolicy({
      allowlists: {
        [Provider.WhatsAppCloud]: this.PROVIDER_ENDPOINTS_WHATSAPP_CLOUD,
        [Provider.Twilio]: this.PROVIDER_ENDPOINTS_TWILIO,
        [Provider.Ses]: this.PROVIDER_ENDPOINTS_SES,
        [Provider.Mitto]: this.PROVIDER_ENDPOINTS_MITTO,
        [Provider.Simulator]: this.PROVIDER_ENDPOINTS_SIMULATOR,
      },
      simulatorEnabled: this.PROVIDER_SIMULATOR_ENABLED,
    });
  }
}
