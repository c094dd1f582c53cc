import { basename } from 'node:path';
import type { CredentialRateView } from '@ums/contracts';
import { bearer, createTenantKey, insertSimulatorCredential, seedCampaign, waitUntil } from '@ums/testing';
import { SendingFixture } from '../sending/test/sending-fixture';

jest.setTimeout(300_000);

const RECIPIENTS = 2_000;
const CEILING = 400;
const FLOOR = 20;

interface Sums {
  rows: number;
  granted: number;
  accepted: number;
  congested: number;
  decreases: number;
  minRate: number;
  maxRate: number;
  tenants: string;
}

/**
 * Two sender processes sending one campaign through a provider that throttles above its capacity:
 * both write their per-second figures into the same rows of credential_rate_seconds, and the
 * campaign API answers them.
 */
describe('per-second rate-limiter figures from sender processes to the campaign API', () => {
  let fixture: SendingFixture;

  beforeAll(async () => {
    fixture = await SendingFixture.start('credential_rate_e2e');
    await Promise.all([fixture.startSender('a'), fixture.startSender('b')]);
  });

  afterAll(async () => {
    await fixture?.stop();
  });

  async function sums(credentialId: string): Promise<Sums> {
    const [row] = (await fixture.ds.query(
      `SELECT COUNT(*) AS \`rows\`, COALESCE(SUM(granted), 0) AS granted, COALESCE(SUM(accepted), 0) AS accepted,
              COALESCE(SUM(congested), 0) AS congested, COALESCE(SUM(decreases), 0) AS decreases,
              COALESCE(MIN(rate), 0) AS minRate, COALESCE(MAX(rate), 0) AS maxRate,
              COALESCE(GROUP_CONCAT(DISTINCT tenant_id), '') AS tenants
         FROM credential_rate_seconds WHERE credential_id = ?`,
      [credentialId],
    )) as Record<keyof Sums, string | number>[];
    const n = (key: keyof Sums): number => Number(row?.[key] ?? 0);
    return {
      rows: n('rows'),
      granted: n('granted'),
      accepted: n('accepted'),
      congested: n('congested'),
      decreases: n('decreases'),
      minRate: n('minRate'),
      maxRate: n('maxRate'),
      tenants: String(row?.tenants ?? ''),
    };
  }

  it('records grants, throttling and AIMD decreases of both senders, and serves them', async () => {
    const credentialId = 'cred_rate_seconds';
    await fixture.simulator.putCredential(credentialId, {
      provider: 'simulator',
      latency: { minMs: 1, p50Ms: 5, p99Ms: 20 },
      capacityTps: 150,
      callbacks: { enabled: false },
    });
    await insertSimulatorCredential(fixture.db.settings, {
      id: credentialId,
      tenantId: 'acme',
      baseUrl: fixture.simulator.url,
      ceilingPerSec: CEILING,
      floorPerSec: FLOOR,
    });
    await seedCampaign(fixture.db.settings, {
      campaignId: 'cmp_rate_seconds',
      tenantId: 'acme',
      credentialId,
      contacts: RECIPIENTS,
    });
    const runId = await fixture.createRun('cmp_rate_seconds');
    await waitUntil('every message sent', async () => (await fixture.counters(runId)).sent === RECIPIENTS, {
      timeoutMs: 180_000,
      intervalMs: 500,
    });

    // Each sender writes a second once it is over: every grant is in the table soon after the last send.
    const written = await waitUntil(
      'the figures of the last seconds written',
      async () => {
        const now = await sums(credentialId);
        return now.granted >= RECIPIENTS && now.accepted > 0 ? now : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 250 },
    );
    expect(written.tenants).toBe('acme');
    // The provider throttled above its capacity, and AIMD cut the rate for it.
    expect(written.congested).toBeGreaterThan(0);
    expect(written.decreases).toBeGreaterThan(0);
    expect(written.minRate).toBeGreaterThanOrEqual(FLOOR);
    expect(written.maxRate).toBeLessThanOrEqual(CEILING);

    const scheduler = fixture.processes.find((p) => basename(p.logFile).startsWith('campaign-scheduler'));
    if (scheduler === undefined) throw new Error('no campaign-scheduler in the fixture');
    const key = await createTenantKey(scheduler.url, 'acme');
    const response = await fetch(`${scheduler.url}/v1/credentials/${credentialId}/rate?seconds=3600`, {
      headers: bearer(key),
    });
    expect(response.status).toBe(200);
    const view = (await response.json()) as CredentialRateView;
    // The series holds complete seconds: all rows but any of the second in progress.
    expect(view.series.length).toBeGreaterThanOrEqual(written.rows - 1);
    expect(view.series.reduce((sum, s) => sum + s.granted, 0)).toBeGreaterThan(0);
    expect(view.congestionEvents.length).toBeGreaterThan(0);
    expect(view.congestionEvents.length).toBeLessThanOrEqual(Math.min(50, written.decreases));
    expect(view.current?.rate).toBeGreaterThanOrEqual(FLOOR);
    expect(view).toMatchObject({ credentialId, rateCeilingPerSec: CEILING, rateFloorPerSec: FLOOR });
  });
});
