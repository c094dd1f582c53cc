import { Injectable } from '@nestjs/common';
import type { Channel } from '@ums/contracts';
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

/** What inbound messages need of the database: whose credential it is, and opt-outs. */
@Injectable()
export class InboundMessagesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async ownersOf(credentialIds: readonly string[]): Promise<Map<string, CredentialOwner>> {
    if (credentialIds.length === 0) return new Map();
    const rows = (await this.dataSource.query(
      'SELECT id, tenant_id, channel FROM credentials WHERE id IN (?)',
      [[...new Set(credentialIds)]],
    )) as { id: string; tenant_id: string; channel: string }[];
    return new Map(rows.map((r) => [r.id, { tenantId: r.tenant_id, channel: r.channel as Channel }]));
  }

  /** Opt-outs, once each (the primary key is tenant, channel, address): one multi-row statement. */
  async recordOptOuts(optOuts: readonly OptOut[]): Promise<void> {
    if (optOuts.length === 0) return;
    await this.dataSource.query(
      `INSERT IGNORE INTO opt_outs (tenant_id, channel, address, source) VALUES ${optOuts.map(() => '(?, ?, ?, ?)').join(', ')}`,
      optOuts.flatMap((o) => [o.tenantId, o.channel, o.address, o.source]),
    );
  }
}
