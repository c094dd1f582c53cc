import { Injectable } from '@nestjs/common';
import type { Channel, OptOutView } from '@ums/contracts';
import { selectRows, writeRows } from '@ums/platform';
import { DataSource } from 'typeorm';

/** One opt-out to store. */
export interface NewOptOut {
  readonly channel: Channel;
  readonly address: string;
  readonly source: string;
}

/** A keyset position: the page goes on after this channel and address. */
export interface OptOutCursor {
  readonly channel: Channel;
  readonly address: string;
}

export interface OptOutQuery {
  readonly tenantId: string;
  readonly channel?: Channel;
  /** Exact (channel, address) pairs to look up instead of a page of everything. */
  readonly exact?: readonly OptOutCursor[];
  readonly after?: OptOutCursor;
  readonly limit: number;
}

/** An `opt_outs` row. */
interface OptOutRow {
  readonly tenant_id: string;
  readonly channel: Channel;
  readonly address: string;
  readonly source: string;
  readonly created_at: Date;
}

const COLUMNS = 'tenant_id, channel, address, source, created_at';

/**
 * The opt_outs table of a tenant. Its primary key (tenant_id, channel, address) serves every
 * statement here: pages are keyset ranges on it, lookups and deletes are point reads on it.
 */
@Injectable()
export class OptOutsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A page in (channel, address) order, or the rows of exact pairs. */
  async list(query: OptOutQuery): Promise<OptOutView[]> {
    const where: string[] = ['tenant_id = ?'];
    const params: unknown[] = [query.tenantId];
    if (query.exact !== undefined) {
      if (query.exact.length === 0) return [];
      where.push(`(${query.exact.map(() => '(channel = ? AND address = ?)').join(' OR ')})`);
      params.push(...query.exact.flatMap((p) => [p.channel, p.address]));
    }
    if (query.channel !== undefined) {
      where.push('channel = ?');
      params.push(query.channel);
    }
    if (query.after !== undefined) {
      // Written as OR rather than a row comparison: both MariaDB and MySQL read this as a range on the key.
      where.push('(channel > ? OR (channel = ? AND address > ?))');
      params.push(query.after.channel, query.after.channel, query.after.address);
    }
    const rows = await selectRows<OptOutRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM opt_outs WHERE ${where.join(' AND ')} ORDER BY channel, address LIMIT ?`,
      [...params, query.limit],
    );
    return rows.map(toView);
  }

  async find(tenantId: string, key: OptOutCursor): Promise<OptOutView | undefined> {
    const rows = await selectRows<OptOutRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM opt_outs WHERE tenant_id = ? AND channel = ? AND address = ?`,
      [tenantId, key.channel, key.address],
    );
    const row = rows[0];
    return row === undefined ? undefined : toView(row);
  }

  /** Stores new opt-outs in one multi-row statement; answers how many were new (existing ones are kept as they are). */
  async insert(tenantId: string, optOuts: readonly NewOptOut[]): Promise<number> {
    if (optOuts.length === 0) return 0;
    const result = await writeRows(
      this.dataSource,
      `INSERT IGNORE INTO opt_outs (tenant_id, channel, address, source)
       VALUES ${optOuts.map(() => '(?, ?, ?, ?)').join(', ')}`,
      optOuts.flatMap((o) => [tenantId, o.channel, o.address, o.source]),
    );
    return result.affectedRows;
  }

  /** Removes one opt-out; answers whether there was one. */
  async remove(tenantId: string, key: OptOutCursor): Promise<boolean> {
    const result = await writeRows(
      this.dataSource,
      'DELETE FROM opt_outs WHERE tenant_id = ? AND channel = ? AND address = ?',
      [tenantId, key.channel, key.address],
    );
    return result.affectedRows > 0;
  }
}

function toView(row: OptOutRow): OptOutView {
  return {
    tenantId: row.tenant_id,
    channel: row.channel,
    address: row.address,
    source: row.source,
    createdAt: row.created_at.toISOString(),
  };
}
