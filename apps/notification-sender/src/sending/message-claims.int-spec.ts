import { randomUUID } from 'node:crypto';
import { FailureReason } from '@ums/contracts';
import { createDataSource, runPendingMigrations } from '@ums/platform';
import { createTestDatabase, seedCampaign } from '@ums/testing';
import type { DataSource } from 'typeorm';
import type { MessageClaimsRepository } from './message-claims.repository';
import { foldCounterDeltas } from './run-counters';
import { messageClaimsRepository } from './test/claims-repository';

describe('message claims (real MariaDB)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let repo: MessageClaimsRepository;

  beforeAll(async () => {
    db = await createTestDatabase('message_claims');
    ds = createDataSource({ ...db.settings, poolSize: 12 });
    await ds.initialize();
    await runPendingMigrations(ds);
    repo = messageClaimsRepository(ds);
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  /** A RUNNING run of `n` PENDING messages, with its counters set as the expander leaves them. */
  async function run(
    campaignId: string,
    n: number,
    state = 'RUNNING',
  ): Promise<{ runId: string; ids: string[] }> {
    await seedCampaign(db.settings, {
      campaignId,
      tenantId: 't',
      credentialId: `cred_${campaignId}`,
      contacts: n,
    });
    const result = (await ds.query(
      `INSERT INTO runs (campaign_id, fire_at, state, total, pending) VALUES (?, UTC_TIMESTAMP(3), ?, ?, ?)`,
      [campaignId, state, n, n],
    )) as { insertId: number };
    const runId = String(result.insertId);
    await ds.query(
      `INSERT INTO messages (run_id, campaign_id, tenant_id, contact_id, channel, credential_id, recipient, lane, state)
       SELECT ?, campaign_id, 't', id, 'sms', ?, address, 'bulk', 'PENDING' FROM contacts WHERE campaign_id = ?`,
      [runId, `cred_${campaignId}`, campaignId],
    );
    const ids = (
      (await ds.query('SELECT id FROM messages WHERE run_id = ? ORDER BY id', [runId])) as { id: string }[]
    ).map((r) => String(r.id));
    return { runId, ids };
  }

  async function countersMatchRows(runId: string): Promise<void> {
    // Counter moves are delta rows until folded (as the senders' folding loop does every 100 ms).
    await ds.transaction('READ COMMITTED', (manager) => foldCounterDeltas(manager, 1_000_000));
    const [counters] = (await ds.query(
      'SELECT pending, sending, sent, failed, unknown FROM runs WHERE id = ?',
      [runId],
    )) as Record<string, string>[];
    const rows = (await ds.query(
      'SELECT state, COUNT(*) AS n FROM messages WHERE run_id = ? GROUP BY state',
      [runId],
    )) as { state: string; n: string }[];
    const count = (state: string): number => Number(rows.find((r) => r.state === state)?.n ?? 0);
    expect({
      pending: Number(counters?.['pending']),
      sending: Number(counters?.['sending']),
      sent: Number(counters?.['sent']),
      failed: Number(counters?.['failed']),
      unknown: Number(counters?.['unknown']),
    }).toEqual({
      pending: count('PENDING'),
      sending: count('SENDING'),
      sent: count('SENT'),
      failed: count('FAILED'),
      unknown: count('UNKNOWN'),
    });
  }

  it('gives each message to exactly one of many concurrent claimers', async () => {
    const { runId, ids } = await run('cmp_race', 2_000);
    // Eight "senders" claim overlapping batches (every id offered four times) at once.
    const batches: string[][] = [];
    for (let copy = 0; copy < 4; copy++)
      for (let i = 0; i < ids.length; i += 100) batches.push(ids.slice(i, i + 100));
    const results = await Promise.all(batches.map((batch) => repo.claim(batch, randomUUID())));
    const claimed = results.flatMap((r) => r.claimed.map((m) => m.id));
    expect(claimed).toHaveLength(ids.length);
    expect(new Set(claimed).size).toBe(ids.length);
    const [row] = (await ds.query(
      `SELECT COUNT(*) AS n FROM messages WHERE run_id = ? AND state = 'SENDING'`,
      [runId],
    )) as { n: string }[];
    expect(Number(row?.n)).toBe(ids.length);
    await countersMatchRows(runId);
  });

  it('skips, instead of claiming, messages whose recipient opted out after the row was created', async () => {
    const { runId, ids } = await run('cmp_optout', 10);
    const recipients = (
      (await ds.query('SELECT recipient FROM messages WHERE run_id = ? ORDER BY id', [runId])) as {
        recipient: string;
      }[]
    ).map((r) => r.recipient);
    // Opted out on this channel for this tenant: the 2nd and 5th. Another tenant's or channel's opt-out is not theirs.
    await ds.query(
      `INSERT INTO opt_outs (tenant_id, channel, address, source)
       VALUES ('t', 'sms', ?, 'import'), ('t', 'sms', ?, 'api'), ('u', 'sms', ?, 'api'), ('t', 'email', ?, 'api')`,
      [recipients[1], recipients[4], recipients[0], recipients[2]],
    );
    let result: Awaited<ReturnType<MessageClaimsRepository['claim']>>;
    try {
      result = await repo.claim(ids, randomUUID());
    } finally {
      // Every run here has the same recipients: the other tests' must not be opted out.
      await ds.query('DELETE FROM opt_outs');
    }
    expect(result.claimed.map((m) => m.id)).toEqual(ids.filter((_, i) => i !== 1 && i !== 4));
    expect(result.optedOut).toEqual(
      [1, 4].map((i) =>
        expect.objectContaining({
          messageId: ids[i],
          recipient: recipients[i],
          previous: 'PENDING',
          status: 'SKIPPED',
          reason: FailureReason.OptedOut,
        }),
      ),
    );
    const rows = (await ds.query(`SELECT state, reason, attempts FROM messages WHERE id IN (?) ORDER BY id`, [
      [ids[1], ids[4]],
    ])) as Record<string, unknown>[];
    expect(rows.map((r) => [r['state'], r['reason'], Number(r['attempts'])])).toEqual([
      ['SKIPPED', 'opted-out', 0],
      ['SKIPPED', 'opted-out', 0],
    ]);
    // A copy of the batch finds them settled: nothing claimed, nothing skipped twice.
    const again = await repo.claim(ids, randomUUID());
    expect([again.claimed.length, again.optedOut.length, again.skipped.length]).toEqual([0, 0, 10]);
    await countersMatchRows(runId);
    const [counters] = (await ds.query('SELECT skipped, sending FROM runs WHERE id = ?', [runId])) as Record<
      string,
      string
    >[];
    expect([Number(counters?.['skipped']), Number(counters?.['sending'])]).toEqual([2, 8]);
  });

  it('folds counter deltas into runs exactly while claims, records and two folders run side by side', async () => {
    const { runId, ids } = await run('cmp_fold', 3_000);
    let working = true;
    let folded = 0;
    let clamped = 0;
    const folder = async (): Promise<void> => {
      while (working) {
        const result = await repo.foldCounters(200);
        folded += result.folded;
        clamped += result.clamped.length;
      }
    };
    const folders = [folder(), folder()];
    // Thirty "batches" claimed and recorded at once, each with its own token, each finished as a batch.
    await Promise.all(
      Array.from({ length: 30 }, async (_, b) => {
        const slice = ids.slice(b * 100, b * 100 + 100);
        const token = randomUUID();
        await repo.claim(slice, token);
        await repo.record(
          token,
          slice.map((id, i) =>
            i % 10 === 0
              ? { id, kind: 'failed' as const, reason: FailureReason.InvalidRecipient, code: '21211' }
              : { id, kind: 'sent' as const, providerMessageId: `p-${id}` },
          ),
        );
        // Every third batch is finished twice at once (a redelivered or re-published copy): counted once.
        await Promise.all(
          b % 3 === 0
            ? [repo.finishBatch(runId, b), repo.finishBatch(runId, b)]
            : [repo.finishBatch(runId, b)],
        );
      }),
    );
    working = false;
    await Promise.all(folders);
    expect(folded).toBeGreaterThan(0);
    expect(clamped).toBe(0);
    await countersMatchRows(runId);
    const [counters] = (await ds.query('SELECT sent, failed, batches_finished FROM runs WHERE id = ?', [
      runId,
    ])) as Record<string, string | number>[];
    expect({
      sent: Number(counters?.['sent']),
      failed: Number(counters?.['failed']),
      batchesFinished: Number(counters?.['batches_finished']),
    }).toEqual({ sent: 2700, failed: 300, batchesFinished: 30 });
    const [left] = (await ds.query('SELECT COUNT(*) AS n FROM run_counter_deltas')) as { n: string }[];
    expect(Number(left?.n)).toBe(0);
  });

  it('holds messages of paused runs as PENDING, and claims single sends', async () => {
    const { ids } = await run('cmp_paused', 10, 'PAUSED');
    const result = await repo.claim(ids, randomUUID());
    expect(result.claimed).toHaveLength(0);
    expect(result.held.sort()).toEqual([...ids].sort());
    await ds.query(
      `INSERT INTO messages (campaign_id, tenant_id, channel, credential_id, recipient, lane, state, idempotency_key, content)
       VALUES ('snd_x', 't', 'sms', 'cred_x', '+4915123456789', 'priority', 'PENDING', 'req-1', '{"content":{"text":"hi"},"variables":null}')`,
    );
    const [single] = (await ds.query(`SELECT id FROM messages WHERE idempotency_key = 'req-1'`)) as {
      id: string;
    }[];
    const claimed = await repo.claim([String(single?.id)], randomUUID());
    expect(claimed.claimed[0]).toMatchObject({
      runId: null,
      attempts: 1,
      stored: { content: { text: 'hi' } },
    });
  });

  it('records outcomes only under the claim token, and moves counters with the rows', async () => {
    const { runId, ids } = await run('cmp_record', 300);
    const token = randomUUID();
    const { claimed } = await repo.claim(ids, token);
    expect(claimed).toHaveLength(300);
    const outcomes = [
      ...ids.slice(0, 200).map((id) => ({ id, kind: 'sent' as const, providerMessageId: `p-${id}` })),
      ...ids.slice(200, 250).map((id) => ({
        id,
        kind: 'failed' as const,
        reason: FailureReason.InvalidRecipient,
        code: '21211',
        text: 'invalid To',
      })),
      ...ids
        .slice(250)
        .map((id) => ({ id, kind: 'released' as const, reason: FailureReason.Throttled, code: '429' })),
    ];
    // Another sender's token changes nothing.
    expect(await repo.record(randomUUID(), outcomes)).toHaveLength(0);
    const changes = await repo.record(token, outcomes);
    expect(changes).toHaveLength(300);
    expect(await repo.record(token, outcomes)).toHaveLength(0); // recorded once
    const rows = (await ds.query(
      `SELECT m.id, m.state, p.provider_message_id, m.reason, m.error_code, m.claim_token
        FROM messages m LEFT JOIN message_provider_ids p ON p.message_id = m.id WHERE m.run_id = ? ORDER BY m.id`,
      [runId],
    )) as Record<string, string | null>[];
    expect(rows[0]).toMatchObject({ state: 'SENT', provider_message_id: `p-${ids[0]}` });
    expect(rows[220]).toMatchObject({ state: 'FAILED', reason: 'invalid-recipient', error_code: '21211' });
    expect(rows[299]).toMatchObject({ state: 'PENDING', reason: 'throttled', claim_token: '' });
    await countersMatchRows(runId);
    // Released messages are claimable again (their retry tier comes back).
    expect((await repo.claim(ids.slice(250), randomUUID())).claimed).toHaveLength(50);
    await countersMatchRows(runId);
  });

  it('turns claims never recorded into UNKNOWN, never claimed again, settled only by a late SENT', async () => {
    const { runId, ids } = await run('cmp_unknown', 40);
    const token = randomUUID();
    await repo.claim(ids, token);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const announced: string[] = [];
    const expired = await repo.expireClaims(1_000, 10_000, (changes) => {
      // Called inside the transaction: the rows are not UNKNOWN for anyone else yet.
      announced.push(...changes.map((c) => c.messageId));
      return Promise.resolve();
    }); // earlier tests left claims too
    expect(expired.filter((c) => c.runId === runId)).toHaveLength(40);
    expect(announced).toEqual(expired.map((c) => c.messageId));
    expect((await repo.claim(ids, randomUUID())).claimed).toHaveLength(0);
    // A late failure or release of the expired claim leaves UNKNOWN alone (never resent automatically) ...
    expect(
      await repo.record(token, [
        ...ids.slice(0, 20).map((id) => ({ id, kind: 'released' as const, reason: FailureReason.Throttled })),
        ...ids.slice(20).map((id) => ({ id, kind: 'failed' as const, reason: FailureReason.Rejected })),
      ]),
    ).toHaveLength(0);
    expect(
      await repo.record(randomUUID(), [{ id: ids[0] ?? '', kind: 'sent', providerMessageId: 'x' }]),
    ).toEqual([]);
    // ... but its late SENT, the provider's word, settles it and keeps the provider id for the callbacks.
    const late = await repo.record(
      token,
      ids.map((id) => ({ id, kind: 'sent' as const, providerMessageId: `late-${id}` })),
    );
    expect(late.map((c) => [c.messageId, c.previous, c.status, c.providerMessageId])).toEqual(
      ids.map((id) => [id, 'UNKNOWN', 'SENT', `late-${id}`]),
    );
    const rows = (await ds.query(
      `SELECT m.state, p.provider_message_id FROM messages m LEFT JOIN message_provider_ids p ON p.message_id = m.id WHERE m.run_id = ? ORDER BY m.id`,
      [runId],
    )) as { state: string; provider_message_id: string }[];
    expect(rows.map((r) => [r.state, r.provider_message_id])).toEqual(
      ids.map((id) => ['SENT', `late-${id}`]),
    );
    await countersMatchRows(runId);
  });

  it('refreshes and gives back claims only under their token, attempts given back, counters moved', async () => {
    const { runId, ids } = await run('cmp_refresh', 10);
    const token = randomUUID();
    await repo.claim(ids, token);
    await ds.query(
      'UPDATE messages SET claimed_at = DATE_SUB(claimed_at, INTERVAL 1 HOUR) WHERE run_id = ?',
      [runId],
    );
    expect((await repo.refresh(token, [...ids, ids[0] ?? ''])).sort()).toEqual([...ids].sort());
    const [aged] = (await ds.query(
      'SELECT COUNT(*) AS n FROM messages WHERE run_id = ? AND claimed_at < DATE_SUB(UTC_TIMESTAMP(3), INTERVAL 1 MINUTE)',
      [runId],
    )) as { n: string }[];
    expect(Number(aged?.n)).toBe(0);
    expect(await repo.refresh(randomUUID(), ids)).toEqual([]);
    expect(await repo.release(randomUUID(), ids)).toBe(0);

    expect(await repo.release(token, ids.slice(0, 4))).toBe(4);
    expect(await repo.release(token, ids.slice(0, 4))).toBe(0);
    const rows = (await ds.query(
      'SELECT state, attempts, claim_token FROM messages WHERE run_id = ? ORDER BY id',
      [runId],
    )) as { state: string; attempts: number; claim_token: string }[];
    expect(rows.map((r) => [r.state, Number(r.attempts), r.claim_token])).toEqual([
      ...ids.slice(0, 4).map(() => ['PENDING', 0, '']),
      ...ids.slice(4).map(() => ['SENDING', 1, token]),
    ]);
    // Only the rows still held are reported (the others must not be sent).
    expect((await repo.refresh(token, ids)).sort()).toEqual(ids.slice(4).sort());
    await countersMatchRows(runId);
    // Given back, they are claimable again.
    expect((await repo.claim(ids.slice(0, 4), randomUUID())).claimed).toHaveLength(4);
    await countersMatchRows(runId);
  });

  it('rolls an expiry back when its status events cannot be published, for the next sweep', async () => {
    const { runId, ids } = await run('cmp_unknown_rollback', 5);
    await repo.claim(ids, randomUUID());
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await expect(
      repo.expireClaims(1_000, 10_000, () => Promise.reject(new Error('Kafka unavailable'))),
    ).rejects.toThrow('Kafka unavailable');
    const states = (await ds.query('SELECT DISTINCT state FROM messages WHERE run_id = ?', [runId])) as {
      state: string;
    }[];
    expect(states.map((r) => r.state)).toEqual(['SENDING']);
    const retried = await repo.expireClaims(1_000, 10_000, () => Promise.resolve());
    expect(retried.filter((c) => c.runId === runId)).toHaveLength(5);
    await countersMatchRows(runId);
  });

  it('records UNKNOWN, exhausted and never-sent outcomes, and finds settled rows again for their events', async () => {
    const { runId, ids } = await run('cmp_kinds', 4);
    const token = randomUUID();
    expect((await repo.claim(ids, token)).claimed).toHaveLength(4);
    const [sentId, unknownId, exhaustedId, notSentId] = ids as [string, string, string, string];
    const changes = await repo.record(token, [
      { id: sentId, kind: 'sent', providerMessageId: null },
      { id: unknownId, kind: 'unknown', reason: FailureReason.Timeout, code: 'HTTP_504' },
      {
        id: exhaustedId,
        kind: 'failed',
        exhausted: true,
        reason: FailureReason.RetriesExhausted,
        code: 'HTTP_500',
      },
      {
        id: notSentId,
        kind: 'released',
        notSent: true,
        reason: FailureReason.Throttled,
        code: 'NOT_ATTEMPTED',
      },
    ]);
    expect(changes.map((c) => [c.messageId, c.status])).toEqual([
      [sentId, 'SENT'],
      [unknownId, 'UNKNOWN'],
      [exhaustedId, 'FAILED'],
      [notSentId, 'PENDING'],
    ]);
    const rows = (await ds.query(
      `SELECT m.id, m.state, m.attempts, p.provider_message_id FROM messages m LEFT JOIN message_provider_ids p ON p.message_id = m.id WHERE m.run_id = ? ORDER BY m.id`,
      [runId],
    )) as { state: string; attempts: number; provider_message_id: string | null }[];
    expect(rows.map((r) => [r.state, Number(r.attempts)])).toEqual([
      ['SENT', 1],
      ['UNKNOWN', 1],
      ['FAILED', 1],
      ['PENDING', 0], // never sent: its claim's attempt was given back
    ]);
    expect(rows[0]?.provider_message_id).toBeNull();
    await countersMatchRows(runId);
    // A redelivered batch finds the settled rows and their results, for their status events.
    const settled = await repo.settledChanges(ids);
    expect(settled.map((c) => [c.messageId, c.previous, c.status]).sort()).toEqual(
      [
        [sentId, 'SENDING', 'SENT'],
        [unknownId, 'SENDING', 'UNKNOWN'],
        [exhaustedId, 'SENDING', 'FAILED'],
      ].sort(),
    );
    expect(settled.find((c) => c.messageId === exhaustedId)).toMatchObject({
      reason: FailureReason.RetriesExhausted,
      errorCode: 'HTTP_500',
    });
  });
});
