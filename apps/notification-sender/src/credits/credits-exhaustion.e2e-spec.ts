import { randomUUID } from 'node:crypto';
import {
  insertSimulatorCredential,
  jsonCall,
  seedCampaign,
  TEST_OPERATOR_KEY,
  waitUntil,
} from '@ums/testing';
import { SendingFixture } from '../sending/test/sending-fixture';

jest.setTimeout(300_000);

const TENANT = 'acme';
const RECIPIENTS = 300;
/** Credits per SMS segment; the seeded template ("Hello {{name}}") is one segment. */
const PRICE = 2;
const AFFORDABLE = 120;

/**
 * A run of 300 SMS against a balance for 120: the sender claims exactly the 120 it can pay for and
 * pauses the run (CREDITS_EXHAUSTED); an operator's top-up through the scheduler's API resumes it, and
 * the rest are sent, each once.
 */
describe('credits run out mid-run (processes: scheduler, expander, sender, simulator)', () => {
  let fixture: SendingFixture;

  beforeAll(async () => {
    fixture = await SendingFixture.start('credits_exhaustion');
    await fixture.startSender('a');
  });

  afterAll(async () => {
    await fixture?.stop();
  });

  async function ledgerSum(kinds: readonly string[]): Promise<number> {
    const [row] = (await fixture.ds.query(
      `SELECT COALESCE(SUM(amount), 0) AS total FROM credit_ledger WHERE tenant_id = ? AND kind IN (?)`,
      [TENANT, kinds],
    )) as { total: string }[];
    return Number(row?.total);
  }

  async function account(): Promise<{ balance: number; ledger: number }> {
    const [row] = (await fixture.ds.query(
      `SELECT balance FROM credit_accounts WHERE tenant_id = ? AND channel = 'sms'`,
      [TENANT],
    )) as { balance: string }[];
    return {
      balance: Number(row?.balance),
      ledger: await ledgerSum(['TOP_UP', 'RESERVE', 'REFUND', 'ADJUST']),
    };
  }

  /** The opening balance, set up in SQL: the balance and its TOP_UP ledger row in one transaction. */
  async function topUp(amount: number): Promise<void> {
    await fixture.ds.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO credit_accounts (tenant_id, channel, balance, price) VALUES (?, 'sms', 0, ?)
         ON DUPLICATE KEY UPDATE tenant_id = tenant_id`,
        [TENANT, PRICE],
      );
      await manager.query(
        `UPDATE credit_accounts SET balance = balance + ?, updated_at = UTC_TIMESTAMP(3)
          WHERE tenant_id = ? AND channel = 'sms'`,
        [amount, TENANT],
      );
      const [row] = (await manager.query(
        `SELECT balance FROM credit_accounts WHERE tenant_id = ? AND channel = 'sms'`,
        [TENANT],
      )) as { balance: string }[];
      await manager.query(
        `INSERT INTO credit_ledger (tenant_id, channel, kind, amount, balance_after, reference, actor, created_at)
         VALUES (?, 'sms', 'TOP_UP', ?, ?, ?, 'e2e', UTC_TIMESTAMP(3))`,
        [TENANT, amount, row?.balance, randomUUID()],
      );
    });
  }

  async function runRow(runId: string): Promise<Record<string, string | null>> {
    const [row] = (await fixture.ds.query(
      `SELECT state, pause_reason, sent, pending, segments, charged FROM runs WHERE id = ?`,
      [runId],
    )) as Record<string, string | null>[];
    return row ?? {};
  }

  it('pauses with exactly the affordable messages sent, and completes after a top-up, each sent once', async () => {
    const credentialId = 'cred_credits';
    await fixture.simulator.putCredential(credentialId, {
      provider: 'simulator',
      latency: { minMs: 1, p50Ms: 5, p99Ms: 20 },
      callbacks: { enabled: false },
    });
    await insertSimulatorCredential(fixture.db.settings, {
      id: credentialId,
      tenantId: TENANT,
      baseUrl: fixture.simulator.url,
      ceilingPerSec: 500,
      floorPerSec: 50,
    });
    await seedCampaign(fixture.db.settings, {
      campaignId: 'cmp_credits',
      tenantId: TENANT,
      credentialId,
      contacts: RECIPIENTS,
    });
    await topUp(AFFORDABLE * PRICE);
    const runId = await fixture.createRun('cmp_credits');

    await waitUntil(
      'the run paused for credits with every affordable message sent',
      async () => {
        const [run, stats] = await Promise.all([runRow(runId), fixture.simulator.stats(credentialId)]);
        return (
          run['state'] === 'PAUSED' && stats.accepted === AFFORDABLE && Number(run['sent']) === AFFORDABLE
        );
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    const paused = await runRow(runId);
    expect(paused).toMatchObject({ pause_reason: 'CREDITS_EXHAUSTED' });
    expect(await fixture.statesOf(runId)).toMatchObject({
      SENT: AFFORDABLE,
      PENDING: RECIPIENTS - AFFORDABLE,
    });
    expect(await account()).toEqual({ balance: 0, ledger: 0 });
    const events = (await fixture.ds.query(
      `SELECT event, reason FROM run_events WHERE run_id = ? AND event = 'paused'`,
      [runId],
    )) as { event: string; reason: string }[];
    expect(events).toEqual([{ event: 'paused', reason: 'CREDITS_EXHAUSTED' }]);

    // The operator tops up for the rest through the scheduler's API: the run resumes by itself.
    const scheduler = fixture.processes.find((p) => p.logFile.includes('campaign-scheduler'));
    if (scheduler === undefined) throw new Error('no campaign-scheduler process');
    const toppedUp = await jsonCall(
      scheduler.url,
      'POST',
      '/v1/credits/top-ups',
      { channel: 'sms', amount: (RECIPIENTS - AFFORDABLE) * PRICE, reference: 'e2e-top-up' },
      TEST_OPERATOR_KEY,
      { 'x-ums-tenant': TENANT },
    );
    expect(toppedUp.status).toBe(200);

    // Counter deltas fold into the run a moment after its messages settle: wait for both.
    await waitUntil(
      'the run completed with its counters folded',
      async () => {
        const run = await runRow(runId);
        return run['state'] === 'COMPLETED' && Number(run['sent']) === RECIPIENTS;
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    const done = await runRow(runId);
    expect(done).toMatchObject({ sent: String(RECIPIENTS), pending: '0', pause_reason: null });
    expect(Number(done['segments'])).toBe(RECIPIENTS);
    expect(Number(done['charged'])).toBe(RECIPIENTS * PRICE);
    const stats = await fixture.simulator.stats(credentialId);
    expect(stats).toMatchObject({ accepted: RECIPIENTS, distinctMessages: RECIPIENTS, duplicates: 0 });
    // Every credit reserved paid for one message sent; the balance is the ledger's sum.
    expect(await ledgerSum(['RESERVE', 'REFUND'])).toBe(-RECIPIENTS * PRICE);
    expect(await account()).toEqual({ balance: 0, ledger: 0 });
  });
});
