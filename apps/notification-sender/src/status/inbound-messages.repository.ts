import { Injectable } from '@nestjs/common';
import type { Channel } from '@ums/contracts';
import { selectRows, writeRows } from '@ums/platform';
import { DataSource } from 'typeorm';

export interface CredentialOwner {
  readonly tenantId: string;
  readonly channel: Channel;
}

export interface OptOut {
  readonly tenantId: string;
  readonly channel: Channel;
  readonly address: string;
  readonly source: string;
}

/** A credential's id and owner, as selected. */
interface CredentialOwnerRow {
  readonly id: string;
  readonly tenant_id: string;
  readonly channel: string;
}

/** What inbound messages need of the database: whose credential it is, and opt-outs (STOP) and opt-ins (START). */
@Injectable()
export class InboundMessagesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async ownersOf(credentialIds: readonly string[]): Promise<Map<string, CredentialOwner>> {
    if (credentialIds.length === 0) return new Map();
    const rows = await selectRows<CredentialOwnerRow>(
      this.dataSource,
      'SELECT id, tenant_id, channel FROM credentials WHERE id IN (?)',
      [[...new Set(credentialIds)]],
    );
    return new Map(rows.map((r) => [r.id, credentialOwnerOf(r)]));
  }

  /** Opt-outs, once each (the primary key is tenant, channel, address): one multi-row statement. */
  async recordOptOuts(optOuts: readonly OptOut[]): Promise<void> {
    if (optOuts.length === 0) return;
    await writeRows(
      this.dataSource,
      `INSERT IGNORE INTO opt_outs (tenant_id, channel, address, source) VALUES ${optOuts.map(() => '(?, ?, ?, ?)').join(', ')}`,
      optOuts.flatMap((o) => [o.tenantId, o.channel, o.address, o.source]),
    );
  }

  /**
   * Lifts opt-outs (an opt-in keyword), whatever recorded them: one multi-row statement on the
   * primary key; an address that was not opted out is no change.
   */
  async removeOptOuts(optIns: readonly Omit<OptOut, 'source'>[]): Promise<void> {
    if (optIns.length === 0) return;
    await writeRows(
      this.dataSource,
      `DELETE FROM opt_outs WHERE ${optIns.map(() => '(tenant_id = ? AND channel = ? AND address = ?)').join(' OR ')}`,
      optIns.flatMap((o) => [o.tenantId, o.channel, o.address]),
    );
  }
}

function credentialOwnerOf(row: CredentialOwnerRow): CredentialOwner {
  return { tenantId: row.tenant_id, channel: row.channel as Channel };
}
