import { parseCredentialConfig, Provider, secretProblem } from '@ums/contracts';
import { type ProviderEndpointPolicy, sameEndpoint } from '@ums/domain';
import type { FieldError } from '@ums/platform';
import type { CredentialSettings } from './credentials.repository';

/** The secret a credential will have: the one sent with the request, or whether one stays stored. */
export type SecretAfterChange = { readonly sent: string } | { readonly stored: boolean };

/** A credential as it will be stored, for the checks that need the deployment's rules. */
export interface CredentialCheck {
  readonly provider: Provider;
  /** Settings with the endpoint already resolved (see resolveBaseUrl). */
  readonly config: CredentialSettings;
  readonly secret: SecretAfterChange;
  /** Whether the request sets a webhook verify token (only whatsapp-cloud credentials use one). */
  readonly setsVerifyToken: boolean;
}

/**
 * Settings with `baseUrl` filled in when they name none: the credential's current endpoint on an
 * update, else the deployment's default for the provider (none when its allowlist has only wildcards).
 */
export function resolveBaseUrl(
  config: CredentialSettings,
  fallback: string | number | boolean | undefined,
): CredentialSettings {
  if (config['baseUrl'] !== undefined || fallback === undefined) return config;
  return { ...config, baseUrl: fallback };
}

/**
 * Everything wrong with a credential as it would be stored, each naming its field: a provider the
 * deployment does not enable, settings that do not fit the provider (`config.<field>`), an endpoint
 * not on the provider's allowlist (`config.baseUrl`), a missing or malformed secret, a verify token
 * on a provider that has no use for one.
 */
export function credentialProblems(check: CredentialCheck, endpoints: ProviderEndpointPolicy): FieldError[] {
  const { provider } = check;
  const problems: FieldError[] = [];
  if (!endpoints.isEnabled(provider)) {
    problems.push({ field: 'provider', reason: `provider ${provider} is not enabled on this deployment` });
  }
  const parsed = parseCredentialConfig(provider, check.config);
  const issues = parsed.ok ? [] : parsed.issues;
  problems.push(...issues.filter((issue) => issue.field !== 'config.baseUrl'));
  // A baseUrl that is no URL gets the schema's reason; a missing or unlisted one, the allowlist's.
  const malformedBaseUrl = issues.filter((issue) => issue.field === 'config.baseUrl');
  const endpointProblem = baseUrlProblem(provider, check.config['baseUrl'], endpoints);
  if (check.config['baseUrl'] !== undefined && malformedBaseUrl.length > 0)
    problems.push(...malformedBaseUrl);
  else if (endpointProblem !== undefined) problems.push({ field: 'config.baseUrl', reason: endpointProblem });
  const problem = secretFieldProblem(provider, check.secret);
  if (problem !== undefined) problems.push({ field: 'secret', reason: problem });
  if (check.setsVerifyToken && provider !== Provider.WhatsAppCloud) {
    problems.push({
      field: 'webhookVerifyToken',
      reason: `only whatsapp-cloud credentials answer Meta's verify challenge, not ${provider}`,
    });
  }
  return problems;
}

function baseUrlProblem(
  provider: Provider,
  baseUrl: string | number | boolean | undefined,
  endpoints: ProviderEndpointPolicy,
): string | undefined {
  if (baseUrl === undefined) {
    const allowed = endpoints.endpoints(provider);
    return `is required: one of ${allowed.length === 0 ? 'none allowed' : allowed.join(', ')}`;
  }
  return endpoints.endpointProblem(provider, String(baseUrl));
}

function secretFieldProblem(provider: Provider, secret: SecretAfterChange): string | undefined {
  if ('sent' in secret) return secretProblem(provider, secret.sent);
  return secret.stored ? undefined : secretProblem(provider, undefined);
}

/**
 * A credential whose endpoint changes must be sent its secret again: the stored one was given for
 * the old endpoint and is never sent anywhere else.
 */
export function endpointChangeProblems(
  current: CredentialSettings,
  next: CredentialSettings,
  secretSent: boolean,
): FieldError[] {
  const before = current['baseUrl'];
  const after = next['baseUrl'];
  const unchanged =
    before === after ||
    (typeof before === 'string' && typeof after === 'string' && sameEndpoint(before, after));
  if (unchanged || secretSent) return [];
  return [
    {
      field: 'secret',
      reason:
        'must be sent again (or cleared with null) when config.baseUrl changes: the stored secret is never sent to a new endpoint',
    },
  ];
}
