import { Injectable } from '@nestjs/common';
import { generateWebhookSecret, subscriberUrlProblem } from '@ums/domain';
import {
  InvalidInputError,
  NotFoundError,
  SecretBox,
  type TenantFilter,
  ForbiddenError,
} from '@ums/platform';
import { ulid } from 'ulid';
import { SubscriberErrorCode } from '@ums/contracts';
import { DeliveriesConfig } from '../deliveries/deliveries.config';
import { FailureWindow } from './failure-window.service';
import { SubscriberAddresses } from './subscriber-address.service';
import { SubscriberDirectory } from './subscriber-directory.service';
import type { CreateSubscriberDto, ListSubscribersDto, UpdateSubscriberDto } from './subscriber.dto';
import type { SubscriberRecord } from './subscriber.record';
import { type SubscriberPage, type SubscriberView, toSubscriberView } from './subscriber.view';
import { SubscribersRepository } from './subscribers.repository';

/**
 * Subscribers: secrets generated here (`whsec_`, shown once, sealed with the SecretBox at rest like
 * provider credentials), URL rules from the domain and public addresses for public subscribers
 * (checked when created and when the URL changes), state changes visible to the hot path at once
 * in this replica and within WEBHOOK_SUBSCRIBER_REFRESH_MS in the others.
 */
@Injectable()
export class SubscribersService {
  constructor(
    private readonly repository: SubscribersRepository,
    private readonly directory: SubscriberDirectory,
    private readonly failures: FailureWindow,
    private readonly box: SecretBox,
    private readonly config: DeliveriesConfig,
    private readonly addresses: SubscriberAddresses,
  ) {}

  /** `byOperator`: the operator key calls; only it may make an internal subscriber (private addresses). */
  async create(tenantId: string, dto: CreateSubscriberDto, byOperator: boolean): Promise<SubscriberView> {
    const internal = dto.internal ?? false;
    if (internal) requireOperator(byOperator);
    await this.checkUrl(dto.url, internal, true);
    const secret = generateWebhookSecret();
    const id = `sub_${ulid()}`;
    await this.repository.insert({
      id,
      tenantId,
      url: dto.url,
      eventTypes: dto.eventTypes,
      campaignId: dto.campaignId ?? null,
      internal,
      maxEventsPerRequest: dto.maxEventsPerRequest ?? 1,
      sealedSecret: this.box.seal(secret),
    });
    await this.directory.reloadAfterChange();
    return toSubscriberView(await this.require(id, tenantId), { secret, failuresInWindow: 0 });
  }

  async list(tenant: TenantFilter, query: ListSubscribersDto): Promise<SubscriberPage> {
    const records = await this.repository.list(tenant, query.after, query.limit);
    return {
      items: records.map((r) => toSubscriberView(r)),
      nextAfter: records.length === query.limit ? (records[records.length - 1]?.id ?? null) : null,
    };
  }

  async get(id: string, tenant: TenantFilter): Promise<SubscriberView> {
    const record = await this.require(id, tenant);
    return toSubscriberView(record, { failuresInWindow: await this.failures.count(id) });
  }

  /** Repointing an internal subscriber, or making one internal, is the operator's (`byOperator`). */
  async update(
    id: string,
    tenant: TenantFilter,
    dto: UpdateSubscriberDto,
    byOperator: boolean,
  ): Promise<SubscriberView> {
    const current = await this.require(id, tenant);
    const changes = {
      url: dto.url ?? current.url,
      eventTypes: dto.eventTypes ?? current.eventTypes,
      campaignId: dto.campaignId === undefined ? current.campaignId : dto.campaignId,
      internal: dto.internal ?? current.internal,
      maxEventsPerRequest: dto.maxEventsPerRequest ?? current.maxEventsPerRequest,
    };
    const moved = changes.url !== current.url || changes.internal !== current.internal;
    if (moved && (changes.internal || current.internal)) requireOperator(byOperator);
    await this.checkUrl(changes.url, changes.internal, moved);
    if (!(await this.repository.update(id, tenant, changes))) throw subscriberNotFound(id);
    await this.directory.reloadAfterChange();
    return this.get(id, tenant);
  }

  async delete(id: string, tenant: TenantFilter): Promise<void> {
    if (!(await this.repository.delete(id, tenant))) throw subscriberNotFound(id);
    await this.failures.clear(id);
    await this.directory.reloadAfterChange();
  }

  /** A new secret; the old one keeps signing (as a second signature) for WEBHOOK_SECRET_GRACE_MS. */
  async rotateSecret(id: string, tenant: TenantFilter): Promise<SubscriberView> {
    const current = await this.require(id, tenant);
    const secret = generateWebhookSecret();
    const rotated = await this.repository.rotateSecret(id, tenant, {
      sealedSecret: this.box.seal(secret),
      sealedPrevious: current.sealedSecret,
      graceMs: this.config.WEBHOOK_SECRET_GRACE_MS,
    });
    if (!rotated) throw subscriberNotFound(id);
    await this.directory.reloadAfterChange();
    return toSubscriberView(await this.require(id, tenant), { secret });
  }

  /** The subscriber within `tenant`; another tenant's is not found, exactly like a missing one. */
  private async require(id: string, tenant: TenantFilter): Promise<SubscriberRecord> {
    const record = await this.repository.find(id, tenant);
    if (record === undefined) throw subscriberNotFound(id);
    return record;
  }

  /**
   * The URL rules of the domain, then, for a public subscriber whose URL or kind is new (`changed`),
   * the address rule: its host must be, and resolve only to, public addresses.
   */
  private async checkUrl(url: string, internal: boolean, changed: boolean): Promise<void> {
    const problem = subscriberUrlProblem(url, {
      internal,
      internalAllowed: this.config.WEBHOOK_INTERNAL_SUBSCRIBERS_ALLOWED,
    });
    if (problem !== undefined)
      throw InvalidInputError.field(
        SubscriberErrorCode.UrlRefused,
        internal && !this.config.WEBHOOK_INTERNAL_SUBSCRIBERS_ALLOWED ? 'internal' : 'url',
        problem,
      );
    if (internal || !changed) return;
    const addressProblem = await this.addresses.problem(new URL(url));
    if (addressProblem !== undefined)
      throw InvalidInputError.field(SubscriberErrorCode.UrlRefused, 'url', addressProblem);
  }
}

/** Missing, or another tenant's: the same answer. */
export function subscriberNotFound(id: string): NotFoundError {
  return new NotFoundError(SubscriberErrorCode.NotFound, `Subscriber ${id} does not exist`);
}

/**
 * Internal subscribers may sit on private addresses (where WEBHOOK_INTERNAL_SUBSCRIBERS_ALLOWED is on):
 * only the deployment's operator may point one anywhere, never a tenant's key, which could otherwise aim
 * the dispatcher at the cluster's own services.
 */
function requireOperator(byOperator: boolean): void {
  if (byOperator) return;
  throw new ForbiddenError(
    SubscriberErrorCode.InternalOperatorOnly,
    'Only the operator key may create an internal subscriber or change where one points',
  );
}
