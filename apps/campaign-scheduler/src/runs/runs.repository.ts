import { Injectable } from '@nestjs/common';
import { CampaignErrorCode, FailureReason, MessageStatus, RunErrorCode, RunState } from '@ums/contracts';
import { type CampaignState, runLifecycleEventOf } from '@ums/domain';
import {
  ConflictError,
  NEVER_SQL,
  NotFoundError,
  recordRunEvents,
  selectRows,
  type TenantFilter,
  writeRows,
} from '@ums/platform';
import { DataSource, type EntityManager } from 'typeorm';
import { RUN_COLUMNS, type RunRow, type RunView, toRunView } from './run.view';

/** A run with its campaign's tenant, as `lock` and `lockByCampaign` select it. */
interface LockedRunRow {
  readonly id: string;
  readonly campaign_id: string;
  readonly state: RunState;
  readonly lease_epoch: number;
  readonly tenant_id: string;
}

/** `SELECT 1 AS found`: the literal is an INT on MariaDB and a BIGINT (a string here) on MySQL 8. */
interface FoundRow {
  readonly found: number | string;
}

interface IdRow {
  readonly id: string;
}

interface CampaignTenantRow {
  readonly id: string;
  readonly tenant_id: string;
}

interface CampaignStateRow {
  readonly state: CampaignState;
}

interface NowRow {
  readonly now: Date;
}

/**
 * Runs are a tenant's through their campaign's tenant_id: `AND <the campaign is the tenant's>` for a tenant,
 * nothing for null. The campaign is one primary-key read, so the filter adds nothing to a read of its runs.
 */
function campaignOfTenant(tenantId: TenantFilter, campaignId: string): { sql: string; params: unknown[] } {
  if (tenantId === null) return { sql: '', params: [] };
  return {
    sql: 'AND EXISTS (SELECT 1 FROM campaigns c WHERE c.id = ? AND c.tenant_id = ?)',
    params: [campaignId, tenantId],
  };
}

/** Locked run row with what actions need. */
export interface LockedRun {
  readonly id: string;
  readonly campaignId: string;
  readonly tenantId: string;
  readonly state: RunState;
  readonly epoch: number;
}

/** Fields an action may change on a run; epoch bump and lease release are the fencing part. */
export interface RunChange {
  readonly state: RunState;
  readonly bumpEpoch?: boolean;
  readonly finished?: boolean;
  readonly reopen?: boolean;
}

@Injectable()
export class RunsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The run of the campaign, if the campaign is the tenant's (any tenant's for null). */
  async find(tenantId: TenantFilter, campaignId: string, runId: string): Promise<RunView | undefined> {
    const tenant = campaignOfTenant(tenantId, campaignId);
    const rows = await selectRows<RunRow>(
      this.dataSource,
      `SELECT ${RUN_COLUMNS} FROM runs WHERE id = ? AND campaign_id = ? ${tenant.sql}`,
      [runId, campaignId, ...tenant.params],
    );
    return rows[0] === undefined ? undefined : toRunView(rows[0]);
  }

  /** Whether the campaign exists and is the tenant's (any tenant's for null). */
  async campaignVisible(tenantId: TenantFilter, campaignId: string): Promise<boolean> {
    const rows = await selectRows<FoundRow>(
      this.dataSource,
      'SELECT 1 AS found FROM campaigns WHERE id = ? AND (? IS NULL OR tenant_id = ?)',
      [campaignId, tenantId, tenantId],
    );
    return rows.length > 0;
  }

  /**
   * Newest first, keyset on id; empty unless the campaign is the tenant's. `tenantId` null (the
   * default) lists any campaign's runs: for callers that checked the campaign's tenant already.
   */
  async list(
    campaignId: string,
    limit: number,
    before?: string,
    tenantId: TenantFilter = null,
  ): Promise<RunView[]> {
    const tenant = campaignOfTenant(tenantId, campaignId);
    const rows = await selectRows<RunRow>(
      this.dataSource,
      `SELECT ${RUN_COLUMNS} FROM runs WHERE campaign_id = ? ${before === undefined ? '' : 'AND id < ?'}
        ${tenant.sql} ORDER BY id DESC LIMIT ?`,
      [campaignId, ...(before === undefined ? [] : [before]), ...tenant.params, limit],
    );
    return rows.map(toRunView);
  }

  /**
   * Runs of a campaign in the given states, locked (campaign-wide actions); none unless the campaign is
   * the tenant's. `tenantId` null (the default): any campaign, for callers that locked it already.
   */
  async lockByCampaign(
    manager: EntityManager,
    campaignId: string,
    states: readonly RunState[],
    tenantId: TenantFilter = null,
  ): Promise<LockedRun[]> {
    const rows = await selectRows<LockedRunRow>(
      manager,
      `SELECT r.id, r.campaign_id, r.state, r.lease_epoch, c.tenant_id
         FROM runs r JOIN campaigns c ON c.id = r.campaign_id
        WHERE r.campaign_id = ? AND r.state IN (?) ${tenantId === null ? '' : 'AND c.tenant_id = ?'}
        ORDER BY r.id FOR UPDATE`,
      [campaignId, states, ...(tenantId === null ? [] : [tenantId])],
    );
    return rows.map(toLocked);
  }

  /** The run locked for an action, if its campaign is the tenant's (any tenant's for null). */
  async lock(
    manager: EntityManager,
    tenantId: TenantFilter,
    campaignId: string,
    runId: string,
  ): Promise<LockedRun | undefined> {
    const rows = await selectRows<LockedRunRow>(
      manager,
      `SELECT r.id, r.campaign_id, r.state, r.lease_epoch, c.tenant_id
         FROM runs r JOIN campaigns c ON c.id = r.campaign_id
        WHERE r.id = ? AND r.campaign_id = ? ${tenantId === null ? '' : 'AND c.tenant_id = ?'} FOR UPDATE`,
      [runId, campaignId, ...(tenantId === null ? [] : [tenantId])],
    );
    return rows[0] === undefined ? undefined : toLocked(rows[0]);
  }

  /**
   * Applies an action's outcome to a run locked by `lock` or `lockByCampaign` (which applied the tenant
   * filter) in the same transaction. With bumpEpoch the lease is freed at a new epoch: whichever
   * expander held it is fenced out, and the published request names the new epoch. A change of state
   * goes to the run_events outbox in the same transaction. Every action clears `pause_reason`: a run
   * paused by a person, or resumed, was not paused by a sender for credits or quota.
   */
  async apply(manager: EntityManager, run: LockedRun, change: RunChange): Promise<number> {
    const epoch = change.bumpEpoch === true ? run.epoch + 1 : run.epoch;
    await writeRows(
      manager,
      `UPDATE runs
          SET state = ?, lease_epoch = ?,
              lease_owner = ${change.bumpEpoch === true ? 'NULL' : 'lease_owner'},
              checkpoint_at = ${change.bumpEpoch === true ? 'UTC_TIMESTAMP(3)' : 'checkpoint_at'},
              finished_at = ${change.finished === true ? 'UTC_TIMESTAMP(3)' : change.reopen === true ? 'NULL' : 'finished_at'},
              expanded_at = ${change.reopen === true ? 'NULL' : 'expanded_at'},
              failure_reason = ${change.reopen === true ? 'NULL' : 'failure_reason'},
              attempts = ${change.reopen === true ? '0' : 'attempts'},
              pause_reason = NULL,
              updated_at = UTC_TIMESTAMP(3)
        WHERE id = ?`,
      [change.state, epoch, run.id],
    );
    const event = runLifecycleEventOf(run.state, change.state);
    if (event !== undefined) {
      await recordRunEvents(manager, { runIds: [run.id], previousState: run.state, event });
    }
    return epoch;
  }

  /**
   * Puts messages of a locked run back to PENDING (retry-failed, resend-unknown) and moves the counters
   * with them, in the caller's transaction. Only messages of the run's tenant are touched (every message
   * of a run is; the rows are read through idx_messages_run_state anyway). Returns how many were reset.
   * Refused (409 RUN_ARCHIVED) once the archiver has moved any of the run's messages: it locks the run
   * row (shared) in each window, so with the run locked here no window is half done.
   */
  async resetMessages(manager: EntityManager, run: LockedRun, from: MessageStatus): Promise<number> {
    const runId = run.id;
    const archived = await selectRows<IdRow>(
      manager,
      'SELECT id FROM messages_archive WHERE run_id = ? LIMIT 1',
      [runId],
    );
    if (archived.length > 0) {
      throw new ConflictError(
        RunErrorCode.Archived,
        `Run ${runId}: its messages are archived (past MESSAGE_RETENTION_MS); they are not sent again`,
        { runId },
      );
    }
    let reset = await this.resetRows(
      manager,
      run,
      from,
      from === MessageStatus.Failed ? 'failed' : 'unknown',
    );
    // resend-unknown also sends the messages a status refresh found the provider never received.
    if (from === MessageStatus.Unknown)
      reset += await this.resetRows(manager, run, MessageStatus.Failed, 'failed', true);
    return reset;
  }

  /** One state's rows of the run back to PENDING (only FAILED NOT_RECEIVED ones with `notReceived`), counters moved. */
  private async resetRows(
    manager: EntityManager,
    run: LockedRun,
    state: MessageStatus,
    column: 'failed' | 'unknown',
    notReceived = false,
  ): Promise<number> {
    const runId = run.id;
    const result = await writeRows(
      manager,
      `UPDATE messages
          SET state = 'PENDING', claim_token = '', claimed_at = ${NEVER_SQL}, reason = NULL, error_code = NULL,
              error_text = NULL, failed_at = ${NEVER_SQL}, attempts = 0, updated_at = UTC_TIMESTAMP(3)
        WHERE run_id = ? AND state = ? AND tenant_id = ?${notReceived ? ' AND reason = ?' : ''}`,
      [runId, state, run.tenantId, ...(notReceived ? [FailureReason.NotReceived] : [])],
    );
    if (result.affectedRows > 0) {
      await writeRows(
        manager,
        `UPDATE runs SET pending = pending + ?, ${column} = GREATEST(CAST(${column} AS SIGNED) - ?, 0) WHERE id = ?`,
        [result.affectedRows, result.affectedRows, runId],
      );
    }
    return result.affectedRows;
  }

  /**
   * Creates the run of a campaign for a fire time, once: the unique (campaign_id, fire_at) makes
   * any repeated trigger a no-op. Returns the run id, new or existing.
   */
  async createOnce(
    manager: EntityManager,
    campaignId: string,
    fireAt: Date,
  ): Promise<{ id: string; created: boolean }> {
    const result = await writeRows(
      manager,
      `INSERT IGNORE INTO runs (campaign_id, fire_at, state, updated_at) VALUES (?, ?, 'PENDING', UTC_TIMESTAMP(3))`,
      [campaignId, fireAt],
    );
    if (result.affectedRows === 1) return { id: String(result.insertId), created: true };
    const rows = await selectRows<IdRow>(
      manager,
      `SELECT id FROM runs WHERE campaign_id = ? AND fire_at = ?`,
      [campaignId, fireAt],
    );
    const existing = rows[0];
    // INSERT IGNORE also turns a foreign-key failure into a warning: no row means no campaign.
    if (existing === undefined)
      throw new NotFoundError(CampaignErrorCode.NotFound, `Campaign ${campaignId} not found`);
    return { id: String(existing.id), created: false };
  }

  /** The tenant of each campaign, for run requests (read without locks). */
  async tenantsOf(manager: EntityManager, campaignIds: readonly string[]): Promise<Map<string, string>> {
    if (campaignIds.length === 0) return new Map();
    const rows = await selectRows<CampaignTenantRow>(
      manager,
      'SELECT id, tenant_id FROM campaigns WHERE id IN (?)',
      [[...new Set(campaignIds)]],
    );
    return new Map(rows.map((row) => [row.id, row.tenant_id]));
  }

  /** The campaign's state with its row locked for the transaction; undefined when there is no such campaign. */
  async lockCampaignState(manager: EntityManager, campaignId: string): Promise<CampaignState | undefined> {
    const rows = await selectRows<CampaignStateRow>(
      manager,
      'SELECT state FROM campaigns WHERE id = ? FOR UPDATE',
      [campaignId],
    );
    return rows[0]?.state;
  }

  /** Sets the state of a campaign locked by `lockCampaignState`, in the same transaction. */
  async setCampaignState(manager: EntityManager, campaignId: string, state: CampaignState): Promise<void> {
    await writeRows(manager, 'UPDATE campaigns SET state = ?, updated_at = UTC_TIMESTAMP(3) WHERE id = ?', [
      state,
      campaignId,
    ]);
  }

  /** The database's clock (UTC). */
  async dbNow(): Promise<Date> {
    const rows = await selectRows<NowRow>(this.dataSource, 'SELECT UTC_TIMESTAMP(3) AS now');
    return (rows[0] as NowRow).now;
  }
}

function toLocked(row: LockedRunRow): LockedRun {
  return {
    id: row.id,
    campaignId: row.campaign_id,
    tenantId: row.tenant_id,
    state: row.state,
    epoch: row.lease_epoch,
  };
}
