import { Injectable } from '@nestjs/common';
import type { ContactListImportSource, ContactListImportView } from '@ums/contracts';
import { type TenantFilter, writeRows } from '@ums/platform';
import { DataSource } from 'typeorm';
import { type ImportRow, importProgressView, ImportRows } from '../audience/import-rows.sql';

const ER_NO_REFERENCED_ROW = 1452;

/**
 * Imports into contact lists: the import rows, their rejected lines, and the members they land. It is
 * the ImportSink of an AudienceImportWriter keyed by the list's id, so a list file is read, validated
 * and deduplicated exactly as a campaign's audience file is.
 */
@Injectable()
export class ContactListImportsRepository extends ImportRows<ContactListImportSource> {
  constructor(dataSource: DataSource) {
    super(dataSource, 'contact_list_imports');
  }

  /** A new RUNNING import; undefined when the list is gone (deleted meanwhile: the foreign key refuses). */
  async createImport(listId: string, source: ContactListImportSource): Promise<string | undefined> {
    try {
      return await this.insertImport(listId, source);
    } catch (error: unknown) {
      if ((error as { errno?: unknown }).errno === ER_NO_REFERENCED_ROW) return undefined;
      throw error;
    }
  }

  /** member_count from the members themselves (idx_contact_list_members_list_id range). */
  async recount(listId: string): Promise<void> {
    await writeRows(
      this.dataSource,
      `UPDATE contact_lists
          SET member_count = (SELECT COUNT(*) FROM contact_list_members WHERE list_id = ?),
              updated_at = UTC_TIMESTAMP(3)
        WHERE id = ?`,
      [listId, listId],
    );
  }

  /** The list's import, when the list is the filter's tenant's. */
  async findImport(
    listId: string,
    importId: string,
    tenant: TenantFilter,
  ): Promise<ContactListImportView | undefined> {
    const row = await this.findImportRow(listId, importId, tenant);
    return row === undefined ? undefined : toImportView(row);
  }
}

function toImportView(row: ImportRow<ContactListImportSource>): ContactListImportView {
  return { id: row.id, listId: row.owner_id, ...importProgressView(row) };
}
