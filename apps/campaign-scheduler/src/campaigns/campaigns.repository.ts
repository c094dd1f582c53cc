import { Injectable } from '@nestjs/common';
import { type Channel, CredentialErrorCode } from '@ums/contracts';
import type { CampaignState, TemplateContent } from '@ums/domain';
import {
  isoOrNull as iso,
  jsonColumn,
  NotFoundError,
  selectRows,
  type TenantFilter,
  writeRows,
} from '@ums/platform';
import { DataSource, type EntityManager } from 'typeorm';
import type { CampaignView } from './campaign.view';
import type { ScheduleKind } from './create-campaign.dto';

export interface NewCampaign {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly channel: Channel;
  readonly credentialId: string;
  readonly template: TemplateContent;
  readonly defaultCountry: string | null;
  readonly scheduleKind: ScheduleKind;
  readonly scheduleAt: Date | null;
  readonly cron: string | null;
  readonly timeZone: string;
  readonly sourceRequestId: string | null;
  /** 1..10 (chk_campaigns_priority). */
  readonly priority: number;
}

export interface CredentialSummary {
  readonly tenantId: string;
  readonly channel: Channel;
}

const COLUMNS = `id, tenant_id, name, channel, credential_id, template, default_country, schedule_kind, schedule_at,
  cron_expression, time_zone, next_fire_at, state, created_at, updated_at, priority`;

/** A `campaigns` row as COLUMNS selects it. */
interface CampaignRow {
  readonly id: string;
  readonly tenant_id: string;
  readonly name: string;
  readonly channel: Channel;
  readonly credential_id: string;
  /** JSON: parsed on MySQL 8, its text on MariaDB (where JSON is LONGTEXT). */
  readonly template: unknown;
  readonly default_country: string | null;
  readonly schedule_kind: ScheduleKind;
  readonly schedule_at: Date | null;
  readonly cron_expression: string | null;
  readonly time_zone: string;
  readonly next_fire_at: Date | null;
  readonly state: CampaignState;
  readonly created_at: Date;
  readonly updated_at: Date;
  /** TINYINT UNSIGNED: a number. */
  readonly priority: number;
}

interface CredentialSummaryRow {
  readonly tenant_id: string;
  readonly channel: Channel;
}

interface IdRow {
  readonly id: string;
}

/** COUNT(*) is a BIGINT: a string. */
interface CountRow {
  readonly n: string;
}

@Injectable()
export class CampaignsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async credential(id: string): Promise<CredentialSummary | undefined> {
    const rows = await selectRows<CredentialSummaryRow>(
      this.dataSource,
      'SELECT tenant_id, channel FROM credentials WHERE id = ?',
      [id],
    );
    const row = rows[0];
    return row === undefined ? undefined : { tenantId: row.tenant_id, channel: row.channel };
  }

  /** Inserts once per (tenant, source request): a repeated bulk request finds the first campaign. */
  async insert(manager: EntityManager, c: NewCampaign): Promise<{ id: string; created: boolean }> {
    const result = await writeRows(
      manager,
      `INSERT IGNORE INTO campaigns (id, tenant_id, name, channel, credential_id, template, default_country,
         schedule_kind, schedule_at, cron_expression, time_zone, state, source_request_id, priority, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'DRAFT', ?, ?, UTC_TIMESTAMP(3))`,
      [
        c.id,
        c.tenantId,
        c.name,
        c.channel,
        c.credentialId,
        JSON.stringify(c.template),
        c.defaultCountry,
        c.scheduleKind,
        c.scheduleAt,
        c.cron,
        c.timeZone,
        c.sourceRequestId,
        c.priority,
      ],
    );
    if (result.affectedRows === 1) return { id: c.id, created: true };
    const rows =
      c.sourceRequestId === null
        ? []
        : await selectRows<IdRow>(
            manager,
            'SELECT id FROM campaigns WHERE tenant_id = ? AND source_request_id = ?',
            [c.tenantId, c.sourceRequestId],
          );
    const existing = rows[0];
    // INSERT IGNORE also turns a foreign-key failure into a warning: the credential is gone.
    if (existing === undefined)
      throw new NotFoundError(CredentialErrorCode.NotFound, `Credential ${c.credentialId} not found`);
    return { id: String(existing.id), created: false };
  }

  /** The campaign, when it exists and is the filter's tenant's (any tenant's for null). */
  async find(
    id: string,
    tenant: TenantFilter,
    manager: EntityManager | DataSource = this.dataSource,
  ): Promise<CampaignView | undefined> {
    const rows = await selectRows<CampaignRow>(
      manager,
      `SELECT ${COLUMNS} FROM campaigns WHERE id = ? AND (? IS NULL OR tenant_id = ?)`,
      [id, tenant, tenant],
    );
    return rows[0] === undefined ? undefined : toView(rows[0]);
  }

  /** find, with the row locked for the transaction. */
  async lock(manager: EntityManager, id: string, tenant: TenantFilter): Promise<CampaignView | undefined> {
    const rows = await selectRows<CampaignRow>(
      manager,
      `SELECT ${COLUMNS} FROM campaigns WHERE id = ? AND (? IS NULL OR tenant_id = ?) FOR UPDATE`,
      [id, tenant, tenant],
    );
    return rows[0] === undefined ? undefined : toView(rows[0]);
  }

  /** Campaigns in id order after `after`, of one tenant or (null) of all. */
  async list(tenant: TenantFilter, limit: number, after?: string): Promise<CampaignView[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (tenant !== null) {
      where.push('tenant_id = ?');
      params.push(tenant);
    }
    if (after !== undefined) {
      where.push('id > ?');
      params.push(after);
    }
    const rows = await selectRows<CampaignRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM campaigns ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id LIMIT ?`,
      [...params, limit],
    );
    return rows.map(toView);
  }

  /** The newest campaigns first (their ids are ULIDs, in time order), of one tenant or (null) of all. */
  async listNewest(tenant: TenantFilter, limit: number): Promise<CampaignView[]> {
    const rows = await selectRows<CampaignRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM campaigns ${tenant === null ? '' : 'WHERE tenant_id = ?'} ORDER BY id DESC LIMIT ?`,
      tenant === null ? [limit] : [tenant, limit],
    );
    return rows.map(toView);
  }

  async audienceSize(id: string): Promise<number> {
    const rows = await selectRows<CountRow>(
      this.dataSource,
      'SELECT COUNT(*) AS n FROM contacts WHERE campaign_id = ?',
      [id],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** A locked campaign's priority: the expanders carry it on the run's next batches. */
  async setPriority(manager: EntityManager, id: string, priority: number): Promise<void> {
    await writeRows(
      manager,
      'UPDATE campaigns SET priority = ?, updated_at = UTC_TIMESTAMP(3) WHERE id = ?',
      [priority, id],
    );
  }

  async setState(
    manager: EntityManager,
    id: string,
    state: CampaignState,
    nextFireAt?: Date | null,
  ): Promise<void> {
    await writeRows(
      manager,
      `UPDATE campaigns SET state = ?, ${nextFireAt === undefined ? '' : 'next_fire_at = ?, '}updated_at = UTC_TIMESTAMP(3)
        WHERE id = ?`,
      nextFireAt === undefined ? [state, id] : [state, nextFireAt, id],
    );
  }
}

function toView(row: CampaignRow): CampaignView {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    channel: row.channel,
    credentialId: row.credential_id,
    template: jsonColumn(row.template) as TemplateContent,
    defaultCountry: row.default_country,
    schedule: {
      kind: row.schedule_kind,
      at: iso(row.schedule_at),
      cron: row.cron_expression,
      timeZone: row.time_zone,
    },
    nextFireAt: iso(row.next_fire_at),
    priority: row.priority,
    state: row.state,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
