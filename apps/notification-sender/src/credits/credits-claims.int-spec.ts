import { randomUUID } from 'node:crypto';
import { FailureReason, SendOutcomeCode } from '@ums/contracts';
import { createDataSource, runPendingMigrations } from '@ums/platform';
import { createTestDatabase, seedCampaign } from '@ums/testing';
import type { DataSource } from 'typeorm';
import type { RenderedClaim } from '../sending/content-rendering.service';
import type { ClaimedMessage, MessageClaimsRepository } from '../sending/message-claims.repository';
import { foldCounterDeltas } from '../sending/run-counters';
import { messageClaimsRepository } from '../sending/test/claims-repository';

jest.setTimeout(60_000);

/** 161 GSM-7 characters: two SMS segments. */
const TWO_SEGMENTS = 'a'.repeat(161);
const PRICE = 3;
const COST = PRICE * 2;

/** Renders every claimable message as a two-segment SMS, as the sender's renderer would. */
const render = (claimable: readonly ClaimedMessage[]): Promise<RenderedClaim> =>
  Promise.resolve({
    results: new Map(),
    outgoing: claimable.map((m) => ({
      messageId: m.id,
      channel: m.channel,
      recipient: m.recipient,
      content: { text: TWO_SEGMENTS },
    })),
  });

describe('credits with claims (real MariaDB)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let repo: MessageClaimsRepository;
  let seq = 0;

  beforeAll(async () => {
    db = await createTestDatabase('credits_claims');
    ds = createDataSource({ ...db.settings, poolSize: 8 });
    await ds.initialize();
    await runPendingMigrations(ds);
    repo = messageClaimsRepository(ds);
  });

  afterEach(async () => {
    // The ledger's invariant: every account's balance is the sum of its ledger amounts.
    const rows = (await ds.query(
      `SELECT a.tenant_id, a.channel, a.balance,
              (SELECT COALESCE(SUM(l.amount), 0) FROM credit_ledger l
                WHERE l.tenant_id = a.tenant_id AND l.channel = a.channel) AS ledger
         FROM credit_accounts a`,
    )) as { tenant_id: string; balance: string; ledger: string }[];
    for (const row of rows) {
      expect({ tenant: row.tenant_id, balance: Number(row.balance) }).toEqual({
        tenant: row.tenant_id,
        balance: Number(row.ledger),
      });
    }
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  /** A tenant with a RUNNING run of `n` PENDING SMS, and (unless price is null) a topped-up account. */
  async function tenantRun(
    n: number,
    account: { balance: number; price: number | null } | undefined,
  ): Promise<{ tenantId: string; runId: string; ids: string[] }> {
    seq += 1;
    const tenantId = `t${seq}`;
    const campaignId = `camp${seq}`;
    await seedCampaign(db.settings, { campaignId, tenantId, credentialId: `cred${seq}`, contacts: n });
    const result = (await ds.query(
      `INSERT INTO runs (campaign_id, fire_at, state, total, pending) VALUES (?, UTC_TIMESTAMP(3), 'RUNNING', ?, ?)`,
      [campaignId, n, n],
    )) as { insertId: number };
    const runId = String(result.insertId);
    await ds.query(
      `INSERT INTO messages (run_id, campaign_id, tenant_id, contact_id, channel, credential_id, recipient, lane, state)
       SELECT ?, campaign_id, ?, id, 'sms', ?, address, 'bulk', 'PENDING' FROM contacts WHERE campaign_id = ?`,
      [runId, tenantId, `cred${seq}`, campaignId],
    );
    if (account !== undefined) await topUp(tenantId, account.balance, account.price);
    const ids = (
      (await ds.query('SELECT id FROM messages WHERE run_id = ? ORDER BY id', [runId])) as { id: string }[]
    ).map((r) => String(r.id));
    return { tenantId, runId, ids };
  }

  /** A top-up as the credits API makes it: the balance and its TOP_UP ledger row in one transaction. */
  async function topUp(tenantId: string, amount: number, price: number | null): Promise<void> {
    await ds.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO credit_accounts (tenant_id, channel, balance, price) VALUES (?, 'sms', ?, ?)
         ON DUPLICATE KEY UPDATE balance = balance + VALUES(balance)`,
        [tenantId, amount, price],
      );
      const [row] = (await manager.query(
        `SELECT balance FROM credit_accounts WHERE tenant_id = ? AND channel = 'sms' FOR UPDATE`,
        [tenantId],
      )) as { balance: string }[];
      await manager.query(
        `INSERT INTO credit_ledger (tenant_id, channel, kind, amount, balance_after, reference, created_at)
         VALUES (?, 'sms', 'TOP_UP', ?, ?, ?, UTC_TIMESTAMP(3))`,
        [tenantId, amount, row?.balance, randomUUID()],
      );
    });
  }

  async function balanceOf(tenantId: string): Promise<number> {
    const [row] = (await ds.query(`SELECT balance FROM credit_accounts WHERE tenant_id = ?`, [tenantId])) as {
      balance: string;
    }[];
    return Number(row?.balance);
  }

  async function ledgerOf(tenantId: string): Promise<Record<string, unknown>[]> {
    const rows = (await ds.query(
      `SELECT kind, amount, balance_after, messages, units, run_id, reference FROM credit_ledger
        WHERE tenant_id = ? AND kind <> 'TOP_UP' ORDER BY id`,
      [tenantId],
    )) as Record<string, unknown>[];
    return rows.map((row) => ({
      kind: row['kind'],
      amount: Number(row['amount']),
      balanceAfter: Number(row['balance_after']),
      messages: Number(row['messages']),
      units: Number(row['units']),
      runId: row['run_id'] === null ? null : String(row['run_id']),
      reference: row['reference'],
    }));
  }

  async function runOf(runId: string): Promise<Record<string, unknown>> {
    await ds.transaction('READ COMMITTED', (manager) => foldCounterDeltas(manager, 1_000_000));
    const [row] = (await ds.query(
      `SELECT state, pause_reason, segments, charged, pending, sending, sent FROM runs WHERE id = ?`,
      [runId],
    )) as Record<string, unknown>[];
    return {
      state: row?.['state'],
      pauseReason: row?.['pause_reason'],
      segments: Number(row?.['segments']),
      charged: Number(row?.['charged']),
      pending: Number(row?.['pending']),
      sending: Number(row?.['sending']),
      sent: Number(row?.['sent']),
    };
  }

  it('debits exactly with the claim: one RESERVE row, segments and charges on the rows', async () => {
    const { tenantId, runId, ids } = await tenantRun(10, { balance: 1000, price: PRICE });
    const token = randomUUID();
    const claim = await repo.claim(ids, token, render);
    expect(claim.claimed).toHaveLength(10);
    expect(claim.rendered?.outgoing).toHaveLength(10);
    expect(await balanceOf(tenantId)).toBe(1000 - 10 * COST);
    expect(await ledgerOf(tenantId)).toEqual([
      {
        kind: 'RESERVE',
        amount: -10 * COST,
        balanceAfter: 1000 - 10 * COST,
        messages: 10,
        units: 20,
        runId,
        reference: token,
      },
    ]);
    const rows = (await ds.query(
      `SELECT DISTINCT segments, encoding, charge FROM messages WHERE run_id = ?`,
      [runId],
    )) as Record<string, unknown>[];
    expect(rows.map((r) => [Number(r['segments']), r['encoding'], Number(r['charge'])])).toEqual([
      [2, 'gsm7', COST],
    ]);
    await repo.record(
      token,
      ids.map((id) => ({ id, kind: 'sent', providerMessageId: `p-${id}` })),
    );
    expect(await runOf(runId)).toMatchObject({
      state: 'RUNNING',
      sent: 10,
      segments: 20,
      charged: 10 * COST,
    });
    expect(await balanceOf(tenantId)).toBe(1000 - 10 * COST);
  });

  it('charges a message re-claimed after a refunded retry once, and never charges a held charge twice', async () => {
    const { tenantId, runId, ids } = await tenantRun(2, { balance: 100, price: PRICE });
    const first = randomUUID();
    await repo.claim(ids, first, render);
    await repo.record(first, [
      { id: ids[0] as string, kind: 'released', notSent: true, reason: FailureReason.Throttled, code: 'X' },
      { id: ids[1] as string, kind: 'released', reason: FailureReason.ProviderError, code: '503' },
    ]);
    expect(await balanceOf(tenantId)).toBe(100);
    const second = randomUUID();
    expect((await repo.claim(ids, second, render)).claimed).toHaveLength(2);
    expect(await balanceOf(tenantId)).toBe(100 - 2 * COST);
    // An UNKNOWN put back to PENDING (resend-unknown) still holds its charge: no second charge.
    await repo.record(second, [
      { id: ids[0] as string, kind: 'unknown', reason: FailureReason.Timeout, code: 'T' },
      { id: ids[1] as string, kind: 'sent', providerMessageId: null },
    ]);
    await ds.query(`UPDATE messages SET state = 'PENDING', claim_token = '' WHERE id = ?`, [ids[0]]);
    const third = randomUUID();
    expect((await repo.claim([ids[0] as string], third, render)).claimed).toHaveLength(1);
    expect(await balanceOf(tenantId)).toBe(100 - 2 * COST);
    expect((await ledgerOf(tenantId)).map((e) => [e['kind'], e['amount']])).toEqual([
      ['RESERVE', -2 * COST],
      ['REFUND', 2 * COST],
      ['RESERVE', -2 * COST],
    ]);
    expect(await runOf(runId)).toMatchObject({ charged: 2 * COST });
  });

  it('claims the affordable prefix, holds the rest PENDING and pauses the run (CREDITS_EXHAUSTED)', async () => {
    const { tenantId, runId, ids } = await tenantRun(10, { balance: 4 * COST + COST - 1, price: PRICE });
    const claim = await repo.claim(ids, randomUUID(), render);
    expect(claim.claimed.map((m) => m.id)).toEqual(ids.slice(0, 4));
    expect([...claim.held].sort()).toEqual(ids.slice(4).sort());
    expect(claim.creditHeld).toBe(6);
    expect(await balanceOf(tenantId)).toBe(COST - 1);
    expect(await runOf(runId)).toMatchObject({
      state: 'PAUSED',
      pauseReason: 'CREDITS_EXHAUSTED',
      pending: 6,
      sending: 4,
    });
    const events = (await ds.query(
      `SELECT event, state, previous_state, reason FROM run_events WHERE run_id = ?`,
      [runId],
    )) as Record<string, unknown>[];
    expect(events).toEqual([
      { event: 'paused', state: 'PAUSED', previous_state: 'RUNNING', reason: 'CREDITS_EXHAUSTED' },
    ]);
    // Paused: a further claim holds the rest without touching the account.
    const again = await repo.claim(ids.slice(4), randomUUID(), render);
    expect(again).toMatchObject({ claimed: [], creditHeld: 0 });
    expect(await ledgerOf(tenantId)).toHaveLength(1);
  });

  it('caps claims at the daily quota (QUOTA_EXHAUSTED) and counts the usage', async () => {
    const { tenantId, runId, ids } = await tenantRun(5, { balance: 1000, price: PRICE });
    await ds.query(`INSERT INTO credit_quotas (tenant_id, daily_limit, monthly_limit) VALUES (?, 3, 100)`, [
      tenantId,
    ]);
    const claim = await repo.claim(ids, randomUUID(), render);
    expect(claim.claimed).toHaveLength(3);
    expect(claim.creditHeld).toBe(2);
    expect(await runOf(runId)).toMatchObject({ state: 'PAUSED', pauseReason: 'QUOTA_EXHAUSTED' });
    const usage = (await ds.query(
      `SELECT period, used FROM credit_quota_usage WHERE tenant_id = ? ORDER BY period`,
      [tenantId],
    )) as { period: string; used: string }[];
    const now = new Date().toISOString();
    expect(usage.map((u) => [u.period, Number(u.used)])).toEqual([
      [`D${now.slice(0, 10)}`, 3],
      [`M${now.slice(0, 7)}`, 3],
    ]);
    expect(await balanceOf(tenantId)).toBe(1000 - 3 * COST);
  });

  it('refunds a recorded permanent failure with one REFUND row and keeps sent and UNKNOWN charges', async () => {
    const { tenantId, runId, ids } = await tenantRun(5, { balance: 1000, price: PRICE });
    const token = randomUUID();
    await repo.claim(ids, token, render);
    const [a, b, c, d, e] = ids as [string, string, string, string, string];
    await repo.record(token, [
      { id: a, kind: 'failed', reason: FailureReason.Rejected, code: 'CONTENT' },
      { id: b, kind: 'failed', reason: FailureReason.InvalidRecipient, code: '21211' },
      { id: c, kind: 'sent', providerMessageId: 'p' },
      { id: d, kind: 'unknown', reason: FailureReason.Timeout, code: 'T' },
      { id: e, kind: 'sent', providerMessageId: 'q' },
    ]);
    expect(await balanceOf(tenantId)).toBe(1000 - 3 * COST);
    expect((await ledgerOf(tenantId))[1]).toEqual({
      kind: 'REFUND',
      amount: 2 * COST,
      balanceAfter: 1000 - 3 * COST,
      messages: 2,
      units: 4,
      runId,
      reference: null,
    });
    const charges = (await ds.query(`SELECT id, charge FROM messages WHERE run_id = ? ORDER BY id`, [
      runId,
    ])) as { id: string; charge: string }[];
    expect(charges.map((r) => Number(r.charge))).toEqual([0, 0, COST, COST, COST]);
    expect(await runOf(runId)).toMatchObject({ charged: 3 * COST, segments: 4 });
  });

  it('refunds a claim given back before its provider call', async () => {
    const { tenantId, ids } = await tenantRun(3, { balance: 100, price: PRICE });
    const token = randomUUID();
    await repo.claim(ids, token, render);
    expect(await repo.release(token, ids)).toBe(3);
    expect(await balanceOf(tenantId)).toBe(100);
    expect((await ledgerOf(tenantId)).map((e) => e['kind'])).toEqual(['RESERVE', 'REFUND']);
  });

  it('fails single sends the credits do not cover (CREDITS_EXHAUSTED), uncharged', async () => {
    const { tenantId } = await tenantRun(0, { balance: COST, price: PRICE });
    await ds.query(
      `INSERT INTO messages (campaign_id, tenant_id, channel, credential_id, recipient, lane, idempotency_key, content)
       VALUES ('req', ?, 'sms', 'c', '+15550000001', 'priority', 'k1', '{}'),
              ('req', ?, 'sms', 'c', '+15550000002', 'priority', 'k2', '{}')`,
      [tenantId, tenantId],
    );
    const ids = (
      (await ds.query(`SELECT id FROM messages WHERE tenant_id = ? ORDER BY id`, [tenantId])) as {
        id: string;
      }[]
    ).map((r) => String(r.id));
    const claim = await repo.claim(ids, randomUUID(), render);
    expect(claim.claimed).toHaveLength(2);
    expect(claim.rendered?.outgoing.map((o) => o.messageId)).toEqual([ids[0]]);
    expect(claim.rendered?.results.get(ids[1] as string)).toMatchObject({
      kind: 'permanent',
      reason: FailureReason.CreditsExhausted,
      code: SendOutcomeCode.CreditsExhausted,
    });
    expect(await balanceOf(tenantId)).toBe(0);
  });

  it('leaves unmetered tenants alone: no ledger rows, segments still recorded', async () => {
    const { tenantId, runId, ids } = await tenantRun(3, { balance: 0, price: null });
    const token = randomUUID();
    expect((await repo.claim(ids, token, render)).claimed).toHaveLength(3);
    expect(await ledgerOf(tenantId)).toEqual([]);
    await repo.record(
      token,
      ids.map((id) => ({ id, kind: 'sent', providerMessageId: null })),
    );
    expect(await runOf(runId)).toMatchObject({ state: 'RUNNING', segments: 6, charged: 0 });
  });
});
