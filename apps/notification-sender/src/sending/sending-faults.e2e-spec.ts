import { insertSimulatorCredential, seedCampaign, waitUntil } from '@ums/testing';
import { SendingFixture, StatusTopicProbe } from './test/sending-fixture';

jest.setTimeout(600_000);

const RECIPIENTS = 20_000;
// SENDER_MAX_CLAIMED_MESSAGES of the senders below: what one process may hold claimed at a kill.
const MAX_CLAIMED = 1_000;
const KILLS = 4;
// Recipients the simulator always refuses (seedCampaign numbers them +4915 followed by 10000000 + i).
const REFUSED = ['+491510000007', '+491510012345'];

describe('sending exactly once with senders SIGKILLed (real Kafka, MariaDB, Redis, processes)', () => {
  let fixture: SendingFixture;
  let statuses: StatusTopicProbe;

  beforeAll(async () => {
    fixture = await SendingFixture.start('sender_faults');
    statuses = await StatusTopicProbe.start(fixture.namespace);
  });

  afterAll(async () => {
    await statuses?.stop();
    await fixture?.stop();
  });

  it('sends every message of a 20,000-recipient campaign at most once while three senders are killed at random', async () => {
    const credentialId = 'cred_faults';
    const campaignId = 'cmp_faults';
    await fixture.simulator.putCredential(credentialId, {
      provider: 'simulator',
      latency: { minMs: 2, p50Ms: 8, p99Ms: 40 },
      // Some 5xx, so messages also travel the retry tiers while senders die.
      error5xxRate: 0.01,
      permanentFailures: REFUSED,
      callbacks: { enabled: false },
    });
    await insertSimulatorCredential(fixture.db.settings, {
      id: credentialId,
      tenantId: 'acme',
      baseUrl: fixture.simulator.url,
      ceilingPerSec: 1500,
      floorPerSec: 100,
    });
    await seedCampaign(fixture.db.settings, {
      campaignId,
      tenantId: 'acme',
      credentialId,
      contacts: RECIPIENTS,
    });
    const senders = await Promise.all(
      ['a', 'b', 'c'].map((name) =>
        fixture.startSender(name, {
          SENDER_MAX_CLAIMED_MESSAGES: String(MAX_CLAIMED),
          // Only a dead sender's claims should expire: 5 s let a live but CPU-starved sender's claims
          // expire on a loaded machine (4,711 UNKNOWN after 4 kills at load average 20-38).
          SENDER_CLAIM_TIMEOUT_MS: '15000',
        }),
      ),
    );
    const runId = await fixture.createRun(campaignId);

    // Kill a random sender at a random moment while the run is being sent, then start it again.
    const kills: { sender: number; sentBefore: number }[] = [];
    while (kills.length < KILLS) {
      await new Promise((resolve) => setTimeout(resolve, 1_500 + Math.random() * 2_500));
      const { sent } = await fixture.counters(runId);
      if (sent >= RECIPIENTS * 0.95) break;
      const victim = Math.floor(Math.random() * senders.length);
      const sender = senders[victim];
      if (sender === undefined) continue;
      await sender.process.kill();
      kills.push({ sender: victim, sentBefore: sent });
      await sender.restart();
    }

    // Claims left by killed senders expire to UNKNOWN (15 s here); nothing may stay PENDING.
    await waitUntil(
      'every message settled and the run completed',
      async () => {
        const c = await fixture.counters(runId);
        return c.total === RECIPIENTS && c.pending === 0 && c.sending === 0 && c.state === 'COMPLETED';
      },
      { timeoutMs: 240_000, intervalMs: 500 },
    );

    const stats = await fixture.simulator.stats(credentialId);
    const states = await fixture.statesOf(runId);
    const counters = await fixture.counters(runId);
    const unknown = states['UNKNOWN'] ?? 0;
    const sent = states['SENT'] ?? 0;
    const failed = states['FAILED'] ?? 0;
    process.stdout.write(
      `sender SIGKILL test: kills=${JSON.stringify(kills)} states=${JSON.stringify(states)} ` +
        `simulator accepted=${stats.accepted} distinct=${stats.distinctMessages} duplicates=${stats.duplicates} ` +
        `5xx=${stats.errors5xx} refused=${stats.rejectedPermanent} status events=${statuses.events}\n`,
    );

    expect(kills.length).toBeGreaterThanOrEqual(2);
    // No message id reached the provider twice.
    expect(stats.duplicates).toBe(0);
    expect(stats.duplicateIds).toEqual([]);
    // Every message ended SENT, FAILED or UNKNOWN; none is PENDING or SENDING.
    expect(sent + failed + unknown).toBe(RECIPIENTS);
    // Each SENT row was accepted by the provider; accepted ones not SENT were left UNKNOWN by a kill.
    expect(stats.distinctMessages).toBeGreaterThanOrEqual(sent);
    expect(stats.distinctMessages).toBeLessThanOrEqual(sent + unknown);
    // The refused recipients are FAILED by the refusal, never retried after it: the provider refused each
    // at most once (below). Their first attempt may have met the simulator's 5xx (1% of requests), which is
    // retried, so attempts is 1 or more. One that a killed sender held in flight is UNKNOWN instead.
    const refused = (await fixture.ds.query(
      'SELECT recipient, state, attempts, error_code FROM messages WHERE run_id = ? AND recipient IN (?)',
      [runId, REFUSED],
    )) as { recipient: string; state: string; attempts: number; error_code: string }[];
    expect(refused).toHaveLength(REFUSED.length);
    for (const row of refused) {
      expect(row.attempts).toBeGreaterThanOrEqual(1);
      expect(['FAILED', 'UNKNOWN']).toContain(row.state);
    }
    const refusedFailed = refused.filter((row) => row.state === 'FAILED').length;
    expect(stats.rejectedPermanent).toBeGreaterThanOrEqual(refusedFailed);
    expect(stats.rejectedPermanent).toBeLessThanOrEqual(REFUSED.length);
    // A kill can leave at most what the process held in flight UNKNOWN.
    expect(unknown).toBeLessThanOrEqual(kills.length * MAX_CLAIMED);
    // Counters agree with the rows.
    expect(counters).toMatchObject({ total: RECIPIENTS, pending: 0, sending: 0, sent, failed, unknown });

    // Every settled message's status reached the status topic (also when its sender died after recording).
    await waitUntil(
      'status events for every settled message',
      async () => {
        const rows = (await fixture.ds.query('SELECT id, state FROM messages WHERE run_id = ?', [runId])) as {
          id: string | number;
          state: string;
        }[];
        return rows.every((r) => statuses.statuses.get(String(r.id))?.has(r.state) === true);
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
  });
});
