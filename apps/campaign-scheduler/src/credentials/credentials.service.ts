import { Injectable } from '@nestjs/common';
import { CredentialErrorCode, describeIssues, HttpErrorCode } from '@ums/contracts';
import { ProviderEndpointPolicy } from '@ums/domain';
import {
  type FieldError,
  InvalidInputError,
  NotFoundError,
  SecretBox,
  type TenantFilter,
} from '@ums/platform';
import { ulid } from 'ulid';
import type { CreateCredentialDto } from './create-credential.dto';
import { credentialProblems, endpointChangeProblems, resolveBaseUrl } from './credential-checks';
import { rateProblems } from './credential-rates';
import type { CredentialPage, CredentialView } from './credential.view';
import {
  type CredentialChanges,
  type CredentialRecord,
  CredentialsRepository,
  type CredentialSettings,
} from './credentials.repository';
import type { ListCredentialsDto } from './list-credentials.dto';
import { providerChannelProblem } from './provider-channels';
import { isSecretLookingKey } from './settings-record.validator';
import type { UpdateCredentialDto } from './update-credential.dto';

/** Where webhook-ingest used to read Meta's verify token, in clear; the sealed column replaces it. */
const LEGACY_VERIFY_TOKEN_KEY = 'webhookVerifyToken';

/** New sealed values of a PATCH: undefined keeps the stored one, null clears it. */
interface SealedChanges {
  readonly secret: string | null | undefined;
  readonly callbackSecret: string | null | undefined;
  readonly verifyToken: string | null | undefined;
}

/**
 * Provider accounts: secrets are sealed with the SecretBox before they reach the database; the
 * settings are checked against the provider's schema and the endpoint against the deployment's
 * allowlist (ProviderEndpointPolicy) whenever a credential is created or changed.
 */
@Injectable()
export class CredentialsService {
  constructor(
    private readonly repository: CredentialsRepository,
    private readonly secretBox: SecretBox,
    private readonly endpoints: ProviderEndpointPolicy,
  ) {}

  async create(tenantId: string, dto: CreateCredentialDto): Promise<CredentialView> {
    const channelProblem = providerChannelProblem(dto.provider, dto.channel);
    const config = resolveBaseUrl(dto.config ?? {}, this.endpoints.defaultBaseUrl(dto.provider));
    refuseIfAny([
      ...(channelProblem === undefined ? [] : [{ field: 'channel', reason: channelProblem }]),
      ...rateProblems(dto),
      ...credentialProblems(
        {
          provider: dto.provider,
          config,
          secret: dto.secret === undefined ? { stored: false } : { sent: dto.secret },
          setsVerifyToken: dto.webhookVerifyToken !== undefined,
        },
        this.endpoints,
      ),
    ]);
    const id = `cred_${ulid()}`;
    await this.repository.insert({
      id,
      tenantId,
      name: dto.name,
      provider: dto.provider,
      channel: dto.channel,
      config,
      sealedSecret: this.sealChange(dto.secret) ?? null,
      sealedCallbackSecret: this.sealChange(dto.callbackSecret) ?? null,
      sealedVerifyToken: this.sealChange(dto.webhookVerifyToken) ?? null,
      rateCeilingPerSec: dto.rateCeilingPerSec,
      rateFloorPerSec: dto.rateFloorPerSec,
      tenantRateCapPerSec: dto.tenantRateCapPerSec ?? null,
    });
    return this.get(tenantId, id);
  }

  /** Another tenant's credential is not found, exactly like a missing one. */
  async get(tenant: TenantFilter, id: string): Promise<CredentialView> {
    const record = await this.repository.findById(id, tenant);
    if (record === undefined) throw notFound(id);
    return toView(record);
  }

  async list(tenant: TenantFilter, query: ListCredentialsDto): Promise<CredentialPage> {
    // One row more than asked tells whether another page exists.
    const records = await this.repository.list(tenant, query.after, query.limit + 1);
    const page = records.slice(0, query.limit);
    const last = page.at(-1);
    return {
      items: page.map(toView),
      nextAfter: records.length > query.limit && last !== undefined ? last.id : null,
    };
  }

  async update(tenant: TenantFilter, id: string, dto: UpdateCredentialDto): Promise<CredentialView> {
    // Sealed outside the row lock: encryption needs no database state.
    const sealed: SealedChanges = {
      secret: this.sealChange(dto.secret),
      callbackSecret: this.sealChange(dto.callbackSecret),
      verifyToken: this.sealChange(dto.webhookVerifyToken),
    };
    const updated = await this.repository.update(id, tenant, (current) => {
      const next = this.merge(current, dto, sealed);
      refuseIfAny([
        ...rateProblems(next),
        ...endpointChangeProblems(current.config, next.config, dto.secret !== undefined),
        ...credentialProblems(
          {
            provider: current.provider,
            config: next.config,
            secret:
              typeof dto.secret === 'string' ? { sent: dto.secret } : { stored: next.sealedSecret !== null },
            setsVerifyToken: typeof dto.webhookVerifyToken === 'string',
          },
          this.endpoints,
        ),
      ]);
      return next;
    });
    if (updated === undefined) throw notFound(id);
    return toView(updated);
  }

  /** The stored values after a PATCH: what it names replaces (or clears) what is stored. */
  private merge(
    current: CredentialRecord,
    dto: UpdateCredentialDto,
    sealed: SealedChanges,
  ): CredentialChanges {
    let config =
      dto.config === undefined
        ? current.config
        : resolveBaseUrl(
            dto.config,
            current.config['baseUrl'] ?? this.endpoints.defaultBaseUrl(current.provider),
          );
    // A verify token set or cleared here replaces any plain copy left in the settings.
    if (sealed.verifyToken !== undefined) config = withoutKey(config, LEGACY_VERIFY_TOKEN_KEY);
    return {
      name: dto.name ?? current.name,
      config,
      sealedSecret: sealed.secret === undefined ? current.sealedSecret : sealed.secret,
      sealedCallbackSecret:
        sealed.callbackSecret === undefined ? current.sealedCallbackSecret : sealed.callbackSecret,
      sealedVerifyToken: sealed.verifyToken === undefined ? current.sealedVerifyToken : sealed.verifyToken,
      rateCeilingPerSec: dto.rateCeilingPerSec ?? current.rateCeilingPerSec,
      rateFloorPerSec: dto.rateFloorPerSec ?? current.rateFloorPerSec,
      tenantRateCapPerSec:
        dto.tenantRateCapPerSec === undefined ? current.tenantRateCapPerSec : dto.tenantRateCapPerSec,
    };
  }

  /** undefined keeps the stored value, null clears it, a string replaces it (sealed). */
  private sealChange(secret: string | null | undefined): string | null | undefined {
    return secret === undefined || secret === null ? secret : this.secretBox.seal(secret);
  }
}

function withoutKey(config: CredentialSettings, key: string): CredentialSettings {
  if (!(key in config)) return config;
  return Object.fromEntries(Object.entries(config).filter(([name]) => name !== key));
}

function refuseIfAny(fields: FieldError[]): void {
  if (fields.length > 0)
    throw new InvalidInputError(HttpErrorCode.ValidationFailed, describeIssues(fields), fields);
}

function notFound(id: string): NotFoundError {
  return new NotFoundError(CredentialErrorCode.NotFound, `No credential ${id}`, { credentialId: id });
}

function toView(record: CredentialRecord): CredentialView {
  return {
    id: record.id,
    tenantId: record.tenantId,
    name: record.name,
    provider: record.provider,
    channel: record.channel,
    // The API refuses secret-looking settings; one written around it (a plain verify token) is not shown.
    config: Object.fromEntries(Object.entries(record.config).filter(([key]) => !isSecretLookingKey(key))),
    hasSecret: record.sealedSecret !== null,
    hasCallbackSecret: record.sealedCallbackSecret !== null,
    hasWebhookVerifyToken:
      record.sealedVerifyToken !== null || typeof record.config[LEGACY_VERIFY_TOKEN_KEY] === 'string',
    rateCeilingPerSec: record.rateCeilingPerSec,
    rateFloorPerSec: record.rateFloorPerSec,
    tenantRateCapPerSec: record.tenantRateCapPerSec,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}
