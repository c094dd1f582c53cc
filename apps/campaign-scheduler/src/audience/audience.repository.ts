import { Injectable } from '@nestjs/common';
import type { Channel } from '@ums/contracts';
import type { CampaignState } from '@ums/domain';
import { selectRows, type TenantFilter } from '@ums/platform';
import { DataSource } from 'typeorm';
import type { AudienceImportView, ImportSource } from './audience-import.view';
import { type ImportRow, importProgressView, ImportRows } from './import-rows.sql';

/** What an import needs to know about its campaign. */
export interface AudienceCampaign {
  readonly id: string;
  readonly channel: Channel;
  /** campaigns.template as stored (a JSON object, or its text on MariaDB). */
  readonly template: unknown;
  readonly defaultCountry: string | null;
  readonly state: CampaignState;
}

export type { ExistingContact, ImportCounters, NewContact, NewReject } from './import-rows.sql';

interface AudienceCampaignRow {
  readonly id: string;
  readonly channel: Channel;
  /** JSON: parsed on MySQL 8, its text on MariaDB (where JSON is LONGTEXT). */
  readonly template: unknown;
  readonly default_country: string | null;
  readonly state: CampaignState;
}

@Injectable()
export class AudienceRepository extends ImportRows<ImportSource> {
  constructor(dataSource: DataSource) {
    super(dataSource, 'audience_imports');
  }

  /** The campaign, when it exists and is the filter's tenant's (any tenant's for null). */
  async campaign(id: string, tenant: TenantFilter): Promise<AudienceCampaign | undefined> {
    const rows = await selectRows<AudienceCampaignRow>(
      this.dataSource,
      `SELECT id, channel, template, default_country, state FROM campaigns
        WHERE id = ? AND (? IS NULL OR tenant_id = ?)`,
      [id, tenant, tenant],
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    return {
      id: row.id,
      channel: row.channel,
      template: row.template,
      defaultCountry: row.default_country,
      state: row.state,
    };
  }

  /** A new import, RUNNING from the start (the work begins as soon as the row exists). */
  async createImport(campaignId: string, source: ImportSource): Promise<string> {
    return this.insertImport(campaignId, source);
  }

  /** The campaign's import, when the campaign is the filter's tenant's. */
  async findImport(
    campaignId: string,
    importId: string,
    tenant: TenantFilter,
  ): Promise<AudienceImportView | undefined> {
    const row = await this.findImportRow(campaignId, importId, tenant);
    return row === undefined ? undefined : toView(row);
  }

  /** Newest first; `before` is the id of the last import of the previous page. */
  async listImports(
    campaignId: string,
    tenant: TenantFilter,
    limit: number,
    before?: string,
  ): Promise<AudienceImportView[]> {
    const rows = await this.listImportRows(campaignId, tenant, limit, before);
    return rows.map(toView);
  }
}

function toView(row: ImportRow<ImportSource>): AudienceImportView {
  return { id: row.id, campaignId: row.owner_id, ...importProgressView(row) };
}
