import type { FieldIssue } from '@ums/contracts';
import { Provider } from '@ums/contracts';
import { type CallbackRates, type LatencyProfile, latencyProfileProblem } from '@ums/domain';
import type { CredentialChangesDto } from './credential-settings.dto';
import { MAX_CAPACITY_TPS } from './credential-settings.dto';

export interface SimulatedAccount {
  readonly phoneNumberId?: string;
  readonly wabaId?: string;
  readonly displayPhoneNumber?: string;
  readonly accountSid?: string;
  readonly from?: string;
  readonly region?: string;
}

export interface CallbackBehaviour extends CallbackRates {
  readonly enabled: boolean;
  readonly delayMs: number;
}

/** One simulated provider account, with every default filled in. */
export interface SimulatedCredential {
  readonly id: string;
  readonly provider: Provider;
  readonly account: SimulatedAccount;
  readonly secret: string | undefined;
  readonly capacityTps: number;
  readonly advertisedTps: number | undefined;
  readonly latency: LatencyProfile;
  readonly error5xxRate: number;
  readonly rate429: number;
  readonly timeoutRate: number;
  readonly timeoutDelivers: boolean;
  readonly permanentFailures: ReadonlySet<string>;
  readonly callbackUrl: string | undefined;
  readonly callbackSecret: string | undefined;
  readonly callbacks: CallbackBehaviour;
  readonly updatedAt: string;
}

/** What a test gets without configuring anything: unlimited, instant, error-free, callbacks on. */
export const CREDENTIAL_DEFAULTS = {
  capacityTps: MAX_CAPACITY_TPS,
  latency: { minMs: 0, p50Ms: 0, p99Ms: 0 },
  error5xxRate: 0,
  rate429: 0,
  timeoutRate: 0,
  timeoutDelivers: false,
  callbacks: {
    enabled: true,
    deliveredRate: 1,
    readRate: 1,
    failedRate: 0,
    duplicateRate: 0,
    outOfOrderRate: 0,
    delayMs: 50,
  },
} as const;

/** The account fields each provider needs to route a request to its credential. */
const REQUIRED_ACCOUNT_FIELD: Readonly<Record<Provider, keyof SimulatedAccount | undefined>> = {
  [Provider.WhatsAppCloud]: 'phoneNumberId',
  [Provider.Twilio]: 'accountSid',
  [Provider.Ses]: 'from',
  [Provider.Mitto]: 'from',
  [Provider.Simulator]: undefined,
};

/** Problems between fields that class-validator checks one by one. */
export function credentialProblems(credential: {
  readonly provider: Provider;
  readonly account: SimulatedAccount;
  readonly latency: LatencyProfile;
}): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const required = REQUIRED_ACCOUNT_FIELD[credential.provider];
  if (required !== undefined && credential.account[required] === undefined) {
    issues.push({ field: `account.${required}`, reason: `is required for provider ${credential.provider}` });
  }
  const latencyProblem = latencyProfileProblem(credential.latency);
  if (latencyProblem !== undefined) issues.push({ field: 'latency', reason: latencyProblem });
  return issues;
}

/**
 * The credential after applying `changes` to `base` (or to the defaults): nested objects merge
 * field by field, lists and scalars replace. Cross-field problems are returned, not thrown.
 */
export function applyCredentialChanges(
  id: string,
  provider: Provider,
  changes: CredentialChangesDto,
  base: SimulatedCredential | undefined,
  now: Date,
): { credential: SimulatedCredential; problems: FieldIssue[] } {
  const credential: SimulatedCredential = {
    id,
    provider,
    account: { ...(base?.account ?? {}), ...definedOnly(changes.account ?? {}) },
    secret: changes.secret ?? base?.secret,
    capacityTps: changes.capacityTps ?? base?.capacityTps ?? CREDENTIAL_DEFAULTS.capacityTps,
    advertisedTps: changes.advertisedTps ?? base?.advertisedTps,
    latency: {
      ...(base?.latency ?? CREDENTIAL_DEFAULTS.latency),
      ...definedOnly(changes.latency ?? {}),
    },
    error5xxRate: changes.error5xxRate ?? base?.error5xxRate ?? CREDENTIAL_DEFAULTS.error5xxRate,
    rate429: changes.rate429 ?? base?.rate429 ?? CREDENTIAL_DEFAULTS.rate429,
    timeoutRate: changes.timeoutRate ?? base?.timeoutRate ?? CREDENTIAL_DEFAULTS.timeoutRate,
    timeoutDelivers: changes.timeoutDelivers ?? base?.timeoutDelivers ?? CREDENTIAL_DEFAULTS.timeoutDelivers,
    permanentFailures:
      changes.permanentFailures !== undefined
        ? new Set(changes.permanentFailures)
        : (base?.permanentFailures ?? new Set<string>()),
    callbackUrl: changes.callbackUrl ?? base?.callbackUrl,
    callbackSecret: changes.callbackSecret ?? base?.callbackSecret,
    callbacks: {
      ...(base?.callbacks ?? CREDENTIAL_DEFAULTS.callbacks),
      ...definedOnly(changes.callbacks ?? {}),
    },
    updatedAt: now.toISOString(),
  };
  return { credential, problems: credentialProblems(credential) };
}

/** What the admin API shows: secrets are reported as present or not, never echoed. */
export function credentialView(c: SimulatedCredential): Record<string, unknown> {
  return {
    credentialId: c.id,
    provider: c.provider,
    account: c.account,
    hasSecret: c.secret !== undefined,
    capacityTps: c.capacityTps,
    advertisedTps: c.advertisedTps ?? null,
    latency: c.latency,
    error5xxRate: c.error5xxRate,
    rate429: c.rate429,
    timeoutRate: c.timeoutRate,
    timeoutDelivers: c.timeoutDelivers,
    permanentFailures: [...c.permanentFailures],
    callbackUrl: c.callbackUrl ?? null,
    hasCallbackSecret: c.callbackSecret !== undefined,
    callbacks: c.callbacks,
    updatedAt: c.updatedAt,
  };
}

// DTO instances carry declared-but-unset fields as undefined; those must not erase a base value.
function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
