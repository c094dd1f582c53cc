import { Injectable } from '@nestjs/common';
import { describeIssues } from '@ums/contracts';
import { type FieldError, InvalidInputError, NotFoundError, SecretBox } from '@ums/platform';
import { ulid } from 'ulid';
import type { CreateCredentialDto } from './create-credential.dto';
import { rateProblems } from './credential-rates';
import type { CredentialPage, CredentialView } from './credential.view';
import { type CredentialRecord, CredentialsRepository } from './credentials.repository';
import type { ListCredentialsDto } from './list-credentials.dto';
import { providerChannelProblem } from './provider-channels';
import type { UpdateCredentialDto } from './update-credential.dto';

/** Provider accounts: secrets are sealed with the SecretBox before they reach the database. */
@Injectable()
export class CredentialsService {
  constructor(
    private readonly repository: CredentialsRepository,
    private readonly secretBox: SecretBox,
  ) {}

  async create(dto: CreateCredentialDto): Promise<CredentialView> {
    const channelProblem = providerChannelProblem(dto.provider, dto.channel);
    refuseIfAny([
      ...(channelProblem === undefined ? [] : [{ field: 'channel', reason: channelProblem }]),
      ...rateProblems(dto),
    ]);
    const id = `cred_${ulid()}`;
    await this.repository.insert({
      id,
      tenantId: dto.tenantId,
      name: dto.name,
      provider: dto.provider,
      channel: dto.channel,
      config: dto.config ?? {},
      sealedSecret: typeof dto.secret === 'string' ? this.secretBox.seal(dto.secret) : null,
      sealedCallbackSecret:
        typeof dto.callbackSecret === 'string' ? this.secretBox.seal(dto.callbackSecret) : null,
      rateCeilingPerSec: dto.rateCeilingPerSec,
      rateFloorPerSec: dto.rateFloorPerSec,
      tenantRateCapPerSec: dto.tenantRateCapPerSec ?? null,
    });
    return this.get(id);
  }

  async get(id: string): Promise<CredentialView> {
    const record = await this.repository.findById(id);
    if (record === undefined) throw notFound(id);
    return toView(record);
  }

  async list(query: ListCredentialsDto): Promise<CredentialPage> {
    // One row more than asked tells whether another page exists.
    const records = await this.repository.listByTenant(query.tenantId, query.after, query.limit + 1);
    const page = records.slice(0, query.limit);
    const last = page.at(-1);
    return {
      items: page.map(toView),
      nextAfter: records.length > query.limit && last !== undefined ? last.id : null,
    };
  }

  async update(id: string, dto: UpdateCredentialDto): Promise<CredentialView> {
    // Sealed outside the row lock: encryption needs no database state.
    const sealedSecret = this.sealChange(dto.secret);
    const sealedCallbackSecret = this.sealChange(dto.callbackSecret);
    const updated = await this.repository.update(id, (current) => {
      const next = {
        name: dto.name ?? current.name,
        config: dto.config ?? current.config,
        sealedSecret: sealedSecret === undefined ? current.sealedSecret : sealedSecret,
        sealedCallbackSecret:
          sealedCallbackSecret === undefined ? current.sealedCallbackSecret : sealedCallbackSecret,
        rateCeilingPerSec: dto.rateCeilingPerSec ?? current.rateCeilingPerSec,
        rateFloorPerSec: dto.rateFloorPerSec ?? current.rateFloorPerSec,
        tenantRateCapPerSec:
          dto.tenantRateCapPerSec === undefined ? current.tenantRateCapPerSec : dto.tenantRateCapPerSec,
      };
      refuseIfAny(rateProblems(next));
      return next;
    });
    if (updated === undefined) throw notFound(id);
    return toView(updated);
  }

  /** undefined keeps the stored value, null clears it, a string replaces it (sealed). */
  private sealChange(secret: string | null | undefined): string | null | undefined {
    return secret === undefined || secret === null ? secret : this.secretBox.seal(secret);
  }
}

function refuseIfAny(fields: FieldError[]): void {
  if (fields.length > 0) throw new InvalidInputError('VALIDATION_FAILED', describeIssues(fields), fields);
}

function notFound(id: string): NotFoundError {
  return new NotFoundError('CREDENTIAL_NOT_FOUND', `No credential ${id}`, { credentialId: id });
}

function toView(record: CredentialRecord): CredentialView {
  return {
    id: record.id,
    tenantId: record.tenantId,
    name: record.name,
    provider: record.provider,
    channel: record.channel,
    config: record.config,
    hasSecret: record.sealedSecret !== null,
    hasCallbackSecret: record.sealedCallbackSecret !== null,
    rateCeilingPerSec: record.rateCeilingPerSec,
    rateFloorPerSec: record.rateFloorPerSec,
    tenantRateCapPerSec: record.tenantRateCapPerSec,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}
