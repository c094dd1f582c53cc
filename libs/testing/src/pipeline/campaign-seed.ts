import { connectTestDatabase, type TestMysqlSettings } from '../mysql/test-database';

export interface CampaignSeed {
  readonly campaignId: string;
  readonly tenantId: string;
  readonly credentialId: string;
  /** Recipients written straight into contacts (+491510000000, +491510000001, ...). */
  readonly contacts: number;
  readonly campaignState?: 'DRAFT' | 'ACTIVE';
  readonly channel?: 'sms' | 'whatsapp';
}

/**
 * Writes a credential, a campaign and its audience directly (multi-row inserts), for tests of
 * what happens after an import: scheduling, expansion, sending.
 */
export async function seedCampaign(settings: TestMysqlSettings, seed: CampaignSeed): Promise<void> {
  const connection = await connectTestDatabase(settings);
  const channel = seed.channel ?? 'sms';
  try {
    await connection.query(
      `INSERT IGNORE INTO credentials (id, tenant_id, name, provider, channel, config, rate_ceiling_per_sec, rate_floor_per_sec)
       VALUES (?, ?, 'seeded', 'simulator', ?, '{}', 1000, 10)`,
      [seed.credentialId, seed.tenantId, channel],
    );
    await connection.query(
      `INSERT INTO campaigns (id, tenant_id, name, channel, credential_id, template, schedule_kind, state)
       VALUES (?, ?, 'seeded', ?, ?, '{"text":"Hello {{name}}"}', 'now', ?)`,
      [seed.campaignId, seed.tenantId, channel, seed.credentialId, seed.campaignState ?? 'ACTIVE'],
    );
    for (let start = 0; start < seed.contacts; start += 2000) {
      const rows: unknown[] = [];
      const end = Math.min(seed.contacts, start + 2000);
      for (let i = start; i < end; i++) {
        rows.push(
          seed.campaignId,
          `+4915${String(10_000_000 + i)}`,
          JSON.stringify({ name: `R${i}` }),
          i + 2,
        );
      }
      await connection.query(
        `INSERT INTO contacts (campaign_id, address, variables, line_no) VALUES ${Array.from(
          { length: end - start },
          () => '(?, ?, ?, ?)',
        ).join(', ')}`,
        rows,
      );
    }
  } finally {
    await connection.end();
  }
}
