import { FailureReason, MessageStatus } from '@ums/contracts';
import { createDataSource, messageTime, runPendingMigrations } from '@ums/platform';
import { createTestDatabase, seedCampaign } from '@ums/testing';
import type { DataSource } from 'typeorm';
import { type ReportedStatus, StatusUpdatesRepository } from './status-updates.repository';
import { foldCounterDeltas } from '../sending/run-counters';

const { Sent, Delivered, Read, Failed } = MessageStatus;

describe('status application (real MariaDB)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let repo: StatusUpdatesRepository;

  beforeAll(async () => {
    db = await createTestDatabase('status_updates');
    ds = createDataSource({ ...db.settings, poolSize: 8 });
    await ds.initialize();
    await runPendingMigrations(ds);
    repo = new StatusUpdatesRepository(ds);
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  /** A RUNNING run of `n` messages in `state`, with counters matching, sent through `cred_<campaign>`. */
  async function run(
    campaignId: string,
    n: number,
    state: MessageStatus,
  ): Promise<{ runId: string; ids: string[] }> {
    await seedCampaign(db.settings, {
      campaignId,
      tenantId: 't',
      credentialId: `cred_${campaignId}`,
      contacts: n,
    });
    const column = state === Read ? 'read_count' : state.toLowerCase();
    const result = (await ds.query(
      `INSERT INTO runs (campaign_id, fire_at, state, total, ${column}) VALUES (?, UTC_TIMESTAMP(3), 'RUNNING', ?, ?)`,
      [campaignId, n, n],
    )) as { insertId: number };
    const runId = String(result.insertId);
    await ds.query(
      `INSERT INTO messages (run_id, campaign_id, tenant_id, contact_id, channel, credential_id, recipient, lane, state)
       SELECT ?, campaign_id, 't', id, 'sms', ?, address, 'bulk', ? FROM contacts WHERE campaign_id = ?`,
      [runId, `cred_${campaignId}`, state, campaignId],
    );
    if (state === Sent) {
      await ds.query(
        `INSERT INTO message_provider_ids (message_id, provider_message_id)
         SELECT id, CONCAT('p-', id) FROM messages WHERE run_id = ?`,
        [runId],
      );
    }
    const ids = (
      (await ds.query('SELECT id FROM messages WHERE run_id = ? ORDER BY id', [runId])) as { id: string }[]
    ).map((r) => String(r.id));
    return { runId, ids };
  }

  let index = 0;
  const report = (
    campaignId: string,
    messageId: string | undefined,
    status: MessageStatus,
    extra: Partial<ReportedStatus> = {},
  ): ReportedStatus => ({
    index: index++,
    messageId,
    providerMessageId: `p-${messageId ?? 'x'}`,
    credentialId: `cred_${campaignId}`,
    status,
    occurredAt: '2026-01-02T03:04:05.678Z',
    ...extra,
  });

  async function rowsOf(runId: string): Promise<Map<string, Record<string, unknown>>> {
    const rows = (await ds.query(
      // As the API reads them: times not yet happened are NULL.
      `SELECT m.id, m.state, p.provider_message_id, m.reason, m.error_code, m.error_text,
              ${messageTime('m.sent_at')} AS sent_at, ${messageTime('m.delivered_at')} AS delivered_at,
              ${messageTime('m.read_at')} AS read_at, ${messageTime('m.failed_at')} AS failed_at
         FROM messages m LEFT JOIN message_provider_ids p ON p.message_id = m.id WHERE m.run_id = ?`,
      [runId],
    )) as Record<string, unknown>[];
    return new Map(rows.map((r) => [String(r['id']), r]));
  }

  async function countersMatchRows(runId: string): Promise<void> {
    // Counter moves are delta rows until folded (as the senders' folding loop does every 100 ms).
    await ds.transaction('READ COMMITTED', (manager) => foldCounterDeltas(manager, 1_000_000));
    const [counters] = (await ds.query(
      'SELECT sending, sent, delivered, read_count, failed, unknown FROM runs WHERE id = ?',
      [runId],
    )) as Record<string, string>[];
    const rows = (await ds.query(
      'SELECT state, COUNT(*) AS n FROM messages WHERE run_id = ? GROUP BY state',
      [runId],
    )) as {
      state: string;
      n: string;
    }[];
    const count = (state: string): number => Number(rows.find((r) => r.state === state)?.n ?? 0);
    expect({
      sending: Number(counters?.['sending']),
      sent: Number(counters?.['sent']),
      delivered: Number(counters?.['delivered']),
      read: Number(counters?.['read_count']),
      failed: Number(counters?.['failed']),
      unknown: Number(counters?.['unknown']),
    }).toEqual({
      sending: count('SENDING'),
      sent: count('SENT'),
      delivered: count('DELIVERED'),
      read: count('READ'),
      failed: count('FAILED'),
      unknown: count('UNKNOWN'),
    });
  }

  it('moves rows forward only: duplicates and read-before-delivered are absorbed, FAILED is terminal', async () => {
    const { runId, ids } = await run('cmp_forward', 6, Sent);
    const [a, b, c, d, e, f] = ids as [string, string, string, string, string, string];
    const c1 = 'cmp_forward';
    const result = await repo.apply([
      report(c1, a, Delivered),
      report(c1, a, Delivered), // duplicate
      report(c1, b, Read), // read before delivered
      report(c1, b, Delivered),
      report(c1, c, Failed, {
        reason: FailureReason.InvalidRecipient,
        errorCode: '131026',
        errorText: 'undeliverable',
      }),
      report(c1, c, Delivered), // after FAILED: terminal
      report(c1, d, Delivered),
      report(c1, d, Failed), // failure after delivery: the better news stays
      report(c1, e, Sent), // duplicate of the send result
      report(c1, f, Delivered),
      report(c1, f, Read),
    ]);
    expect(result.applied.map((x) => [x.messageId, x.previous, x.status])).toEqual([
      [a, Sent, Delivered],
      [b, Sent, Read],
      [c, Sent, Failed],
      [d, Sent, Delivered],
      [f, Sent, Delivered],
      [f, Delivered, Read],
    ]);
    expect(result.absorbed).toEqual({
      duplicate: 2,
      regression: 2,
      terminal: 1,
      'not-reportable': 0,
      moved: 0,
    });
    expect(result.unknown).toEqual([]);
    const rows = await rowsOf(runId);
    expect([a, b, c, d, e, f].map((id) => rows.get(id)?.['state'])).toEqual([
      'DELIVERED',
      'READ',
      'FAILED',
      'DELIVERED',
      'SENT',
      'READ',
    ]);
    expect(rows.get(c)).toMatchObject({
      reason: 'invalid-recipient',
      error_code: '131026',
      error_text: 'undeliverable',
    });
    expect((rows.get(f)?.['read_at'] as Date).toISOString()).toBe('2026-01-02T03:04:05.678Z');
    expect(rows.get(f)?.['delivered_at']).not.toBeNull();
    await countersMatchRows(runId);
    // The same chunk again (a redelivery) changes nothing.
    const again = await repo.apply([report(c1, a, Delivered), report(c1, b, Delivered), report(c1, f, Read)]);
    expect(again.applied).toEqual([]);
    await countersMatchRows(runId);
  });

  it('settles UNKNOWN and SENDING rows by their callbacks, recording the provider id', async () => {
    const { runId, ids } = await run('cmp_unknown', 3, MessageStatus.Unknown);
    const [a, b, c] = ids as [string, string, string];
    const result = await repo.apply([
      report('cmp_unknown', a, Delivered, { providerMessageId: 'wamid.A' }),
      report('cmp_unknown', b, Failed, { reason: FailureReason.Blocked, errorCode: '30007' }),
    ]);
    expect(result.applied.map((x) => [x.previous, x.status])).toEqual([
      [MessageStatus.Unknown, Delivered],
      [MessageStatus.Unknown, Failed],
    ]);
    const rows = await rowsOf(runId);
    expect(rows.get(a)).toMatchObject({ state: 'DELIVERED', provider_message_id: 'wamid.A' });
    expect(rows.get(b)).toMatchObject({ state: 'FAILED', reason: 'blocked', error_code: '30007' });
    expect(rows.get(c)).toMatchObject({ state: 'UNKNOWN' });
    await countersMatchRows(runId);
  });

  it('applies a compare-and-set report only to a row still in the expected state (status refresh)', async () => {
    const { runId, ids } = await run('cas', 2, Sent);
    const [moved, held] = ids as [string, string];
    const result = await repo.apply([
      // Read as UNKNOWN, but a record made it SENT meanwhile: left alone.
      report('cas', moved, Failed, { expected: MessageStatus.Unknown, providerMessageId: null }),
      report('cas', held, Delivered, { expected: Sent }),
    ]);
    expect(result.absorbed.moved).toBe(1);
    expect(result.applied.map((c) => [c.messageId, c.status])).toEqual([[held, Delivered]]);
    const rows = await rowsOf(runId);
    expect([rows.get(moved)?.['state'], rows.get(held)?.['state']]).toEqual([Sent, Delivered]);
    await countersMatchRows(runId);
  });

  it('finds messages by provider id when the callback carries none of ours; unknown ones are reported', async () => {
    const { runId, ids } = await run('cmp_byprovider', 2, Sent);
    const [a] = ids as [string, string];
    const result = await repo.apply([
      report('cmp_byprovider', undefined, Delivered, { providerMessageId: `p-${a}` }),
      report('cmp_byprovider', undefined, Delivered, { providerMessageId: 'p-nobody' }),
      report('cmp_byprovider', '999999999', Delivered),
      // Our id, but echoed through another credential: not ours to change.
      report('cmp_forward', ids[1], Delivered),
    ]);
    expect(result.applied.map((x) => x.messageId)).toEqual([a]);
    expect(result.unknown).toHaveLength(3);
    expect((await rowsOf(runId)).get(a)?.['state']).toBe('DELIVERED');
    await countersMatchRows(runId);
  });

  it('applies a thousand callbacks of concurrent chunks in bulk, counters consistent', async () => {
    const { runId, ids } = await run('cmp_bulk', 1000, Sent);
    const chunk = (status: MessageStatus, slice: readonly string[]): ReportedStatus[] =>
      slice.map((id) => report('cmp_bulk', id, status));
    // Delivered and read for every message, in chunks applied at once and out of order.
    const results = await Promise.all([
      repo.apply(chunk(Read, ids.slice(0, 500))),
      repo.apply(chunk(Delivered, ids)),
      repo.apply(chunk(Read, ids.slice(500))),
      repo.apply(chunk(Delivered, ids.slice(0, 250))),
    ]);
    const applied = results.flatMap((r) => r.applied);
    const rows = await rowsOf(runId);
    expect([...rows.values()].every((r) => r['state'] === 'READ')).toBe(true);
    // Each message ended READ: by sent->read, or by sent->delivered then delivered->read.
    expect(applied.filter((x) => x.status === Read)).toHaveLength(1000);
    await countersMatchRows(runId);
  });
});
