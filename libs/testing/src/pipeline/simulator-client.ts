import { connectTestDatabase, type TestMysqlSettings } from '../mysql/test-database';

/** One second of the simulator's per-credential series. */
export interface SimulatorSecond {
  readonly second: number;
  readonly accepted: number;
  readonly throttled: number;
  readonly rejected: number;
  readonly errors: number;
}

/** What the provider simulator counted for one credential (`GET /_sim/stats?credentialId=`). */
export interface SimulatorStats {
  readonly accepted: number;
  readonly rejectedPermanent: number;
  readonly throttled: number;
  readonly errors5xx: number;
  readonly timeouts: number;
  /** Message ids accepted at least once. */
  readonly distinctMessages: number;
  /** Message ids accepted more than once: the number every exactly-once test wants at 0. */
  readonly duplicates: number;
  readonly duplicateIds: string[];
  /** Most accepted sends in any sliding 1-second window (exact to the millisecond). */
  readonly maxPerSecond: number;
  readonly perSecond: SimulatorSecond[];
}

/** The simulator's admin API, for tests and benchmarks: configure credentials, read counts. */
export class SimulatorClient {
  constructor(readonly url: string) {}

  /** Creates or replaces a simulated credential (see the simulator README for the settings). */
  async putCredential(credentialId: string, settings: Record<string, unknown>): Promise<void> {
    await this.call('PUT', `/_sim/credentials/${encodeURIComponent(credentialId)}`, settings);
  }

  /** Changes some settings while a test runs (e.g. capacityTps); nested objects merge. */
  async patchCredential(credentialId: string, settings: Record<string, unknown>): Promise<void> {
    await this.call('PATCH', `/_sim/credentials/${encodeURIComponent(credentialId)}`, settings);
  }

  async stats(credentialId: string): Promise<SimulatorStats> {
    return (await this.call(
      'GET',
      `/_sim/stats?credentialId=${encodeURIComponent(credentialId)}`,
    )) as SimulatorStats;
  }

  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`simulator ${method} ${path}: ${response.status} ${text}`);
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  }
}

export interface SimulatorCredentialRow {
  readonly id: string;
  readonly tenantId: string;
  /** The simulator's base URL (the sender's adapter posts to `${baseUrl}/sim/v1/messages`). */
  readonly baseUrl: string;
  readonly ceilingPerSec: number;
  readonly floorPerSec: number;
  readonly tenantCapPerSec?: number;
  readonly channel?: 'sms' | 'whatsapp' | 'email';
}

/** Writes a `simulator` credential row that the sender can load (no secret: the simulator needs none). */
export async function insertSimulatorCredential(
  settings: TestMysqlSettings,
  row: SimulatorCredentialRow,
): Promise<void> {
  const connection = await connectTestDatabase(settings);
  try {
    await connection.query(
      `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, rate_ceiling_per_sec,
                                rate_floor_per_sec, tenant_rate_cap_per_sec)
       VALUES (?, ?, 'simulator', 'simulator', ?, ?, ?, ?, ?)`,
      [
        row.id,
        row.tenantId,
        row.channel ?? 'sms',
        JSON.stringify({ baseUrl: row.baseUrl }),
        row.ceilingPerSec,
        row.floorPerSec,
        row.tenantCapPerSec ?? null,
      ],
    );
  } finally {
    await connection.end();
  }
}
