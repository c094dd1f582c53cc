import { Injectable } from '@nestjs/common';
import {
  type Channel,
  ContactListErrorCode,
  type ContactListMemberPage,
  type ContactListPage,
  type ContactListView,
} from '@ums/contracts';
import { ConflictError, NotFoundError, type TenantFilter } from '@ums/platform';
import { ulid } from 'ulid';
import { ContactListsRepository } from './contact-lists.repository';

/** A list of another tenant answers exactly as a missing one. */
export function listNotFound(id: string, field?: string): NotFoundError {
  const prefix = field === undefined ? '' : `${field}: `;
  return new NotFoundError(
    ContactListErrorCode.NotFound,
    `${prefix}contact list ${id} does not exist`,
    field === undefined ? undefined : { field },
  );
}

/** A tenant's contact lists: create, read, page through members, delete. */
@Injectable()
export class ContactListsService {
  constructor(private readonly lists: ContactListsRepository) {}

  async create(input: {
    tenantId: string;
    name: string;
    channel: Channel;
    defaultCountry?: string;
  }): Promise<ContactListView> {
    const id = `lst_${ulid()}`;
    await this.lists.create({
      id,
      tenantId: input.tenantId,
      name: input.name,
      channel: input.channel,
      defaultCountry: input.defaultCountry?.toUpperCase() ?? null,
    });
    return this.get(id, input.tenantId);
  }

  async get(id: string, tenant: TenantFilter): Promise<ContactListView> {
    const list = await this.lists.find(id, tenant);
    if (list === undefined) throw listNotFound(id);
    return list;
  }

  async list(tenant: TenantFilter, limit: number, before?: string): Promise<ContactListPage> {
    const items = await this.lists.list(tenant, limit, before);
    const last = items[items.length - 1];
    return { items, nextBefore: items.length === limit && last !== undefined ? last.id : null };
  }

  async members(
    id: string,
    tenant: TenantFilter,
    page: { after: string; limit: number },
  ): Promise<ContactListMemberPage> {
    await this.get(id, tenant);
    const items = await this.lists.members(id, page.after, page.limit);
    const last = items[items.length - 1];
    return { items, nextAfter: items.length === page.limit && last !== undefined ? last.id : null };
  }

  /** Deletes the list and its members; refused (409) while one of its imports runs. */
  async delete(id: string, tenant: TenantFilter): Promise<void> {
    await this.get(id, tenant);
    const outcome = await this.lists.delete(id);
    if (!outcome.deleted) {
      throw new ConflictError(
        ContactListErrorCode.ImportRunning,
        `Contact list ${id} has an import running; delete it once the import finished`,
      );
    }
    await this.lists.purge(id, outcome.importIds);
  }
}
