import { Injectable } from '@nestjs/common';
import type { Channel } from '@ums/contracts';
import type { CampaignState, TemplateContent } from '@ums/domain';
import { isoOrNull as iso, jsonColumn, type TenantFilter } from '@ums/platform';
import { DataSource, type EntityManager } from 'typeorm';
import type { CampaignView } from './campaign.view';
import type { ScheduleKind } from './create-campaign.dto';

type Row = Record<string, unknown>;

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
}

export interface CredentialSummary {
  readonly tenantId: string;
  readonly channel: Channel;
}

const COLUMNS = `id, tenant_id, name, channel, credential_id, template, default_country, schedule_kind, schedule_at,
  cron_expression, time_zone, next_fire_at, state, created_at, updated_at`;

@Injectable()
export class CampaignsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async credential(id: string): Promise<CredentialSummary | undefined> {
    const rows = (await this.dataSource.query('SELECT tenant_id, channel FROM credentials WHERE id = ?', [
      id,
    ])) as Row[];
    const row = rows[0];
    return row === undefined
      ? undefined
      : { tenantId: String(row['tenant_id']), channel: row['channel'] as Channel };
  }

  /** Inserts once per (tenant, source request): a repeated bulk request finds the first campaign. */
  async insert(manager: EntityManager, c: NewCampaign): Promise<{ id: string; created: boolean }> {
    const result = (await manager.query(
      `INSERT IGNORE INTO campaigns (id, tenant_id, name, channel, credential_id, template, default_country,
         schedule_kind, schedule_at, cron_expression, time_zone, state, source_request_id, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'DRAFT', ?, UTC_TIMESTAMP(3))`,
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
      ],
    )) as { affectedRows: number };
    if (result.affectedRows === 1 || c.sourceRequestId === null) return { id: c.id, created: true };
    const rows = (await manager.query(
      'SELECT id FROM campaigns WHERE tenant_id = ? AND source_request_id = ?',
      [c.tenantId, c.sourceRequestId],
    )) as Row[];
    return { id: String(rows[0]?.['id']), created: false };
  }

  /** The campaign, when it exists and is the filter's tenant's (any tenant's for null). */
  async find(
    id: string,
    tenant: TenantFilter,
    manager: EntityManager | DataSource = this.dataSource,
  ): Promise<CampaignView | undefined> {
    const rows = (await manager.query(
      `SELECT ${COLUMNS} FROM campaigns WHERE id = ? AND (? IS NULL OR tenant_id = ?)`,
      [id, tenant, tenant],
    )) as Row[];
    return rows[0] === undefined ? undefined : toView(rows[0]);
  }

  /** find, with the row locked for the transaction. */
  async lock(manager: EntityManager, id: string, tenant: TenantFilter): Promise<CampaignView | undefined> {
    const rows = (await manager.query(
      `SELECT ${COLUMNS} FROM campaigns WHERE id = ? AND (? IS NULL OR tenant_id = ?) FOR UPDATE`,
      [id, tenant, tenant],
    )) as Row[];
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
    const rows = (await this.dataSource.query(
      `SELECT ${COLUMNS} FROM campaigns ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id LIMIT ?`,
      [...params, limit],
    )) as Row[];
    return rows.map(toView);
  }

  async audienceSize(id: string): Promise<number> {
    const rows = (await this.dataSource.query('SELECT COUNT(*) AS n FROM contacts WHERE campaign_id = ?', [
      id,
    ])) as Row[];
    return Number(rows[0]?.['n'] ?? 0);
  }

  async setState(
    manager: EntityManager,
    id: string,
    state: CampaignState,
    nextFireAt?: Date | null,
  ): Promise<void> {
    await manager.query(
      `UPDATE campaigns SET state = ?, ${nextFireAt === undefined ? '' : 'next_fire_at = ?, '}updated_at = UTC_TIMESTAMP(3)
        WHERE id = ?`,
      nextFireAt === undefined ? [state, id] : [state, nextFireAt, id],
    );
  }
}

function toView(row: Row): CampaignView {
  const template = jsonColumn(row['template']);
  return {
    id: String(row['id']),
    tenantId: String(row['tenant_id']),
    name: String(row['name']),
    channel: row['channel'] as Channel,
    credentialId: String(row['credential_id']),
    template: template as TemplateContent,
    defaultCountry: row['default_country'] === null ? null : String(row['default_country']),
    schedule: {
      kind: row['schedule_kind'] as ScheduleKind,
      at: iso(row['schedule_at']),
      cron: row['cron_expression'] === null ? null : String(row['cron_expression']),
      timeZone: String(row['time_zone']),
    },
    nextFireAt: iso(row['next_fire_at']),
    state: row['state'] as CampaignState,
    createdAt: iso(row['created_at']) as string,
    updatedAt: iso(row['updated_at']) as string,
  };
}
