import { createDataSource, runPendingMigrations } from '@ums/platform';
import { createTestDatabase } from '@ums/testing';
import type { DataSource } from 'typeorm';
import { type DeadLetterEntry, DeadLettersRepository } from './dead-letters.repository';

describe('dead letters repository (real MariaDB)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let repo: DeadLettersRepository;

  beforeAll(async () => {
    db = await createTestDatabase('dead_letters_repo');
    ds = createDataSource({ ...db.settings, poolSize: 2 });
    await ds.initialize();
    await runPendingMigrations(ds);
    repo = new DeadLettersRepository(ds);
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  const letter = (offset: string, over: Partial<DeadLetterEntry> = {}): DeadLetterEntry => ({
    tenantId: 'tenant-a',
    sourceTopic: 'ums.send.requests.v1',
    sourcePartition: 3,
    sourceOffset: offset,
    consumerGroup: 'campaign-scheduler.send-requests',
    key: 'tenant-a',
    value: '{"requestId":"r-1"}',
    valueEncoding: 'utf8',
    headers: { traceparent: '00-x' },
    errorCode: 'CREDENTIAL_NOT_FOUND',
    reason: 'credentialId: no credential',
    attempts: 1,
    failedAt: '2026-11-26T01:02:03.456Z',
    ...over,
  });

  it('stores an entry once however often it is consumed, and keeps its bytes and origin', async () => {
    await repo.insertMany([letter('10'), letter('11')]);
    // Consumed again (a redelivery), together with a new one: only the new one is stored.
    await repo.insertMany([letter('10'), letter('11'), letter('12')]);
    // The same offset failing in another group is another entry.
    await repo.insertMany([letter('10', { consumerGroup: 'other' })]);
    const all = await repo.list({ tenantId: null }, undefined, 10);
    expect(all.map((r) => [r.consumerGroup, r.sourceOffset])).toEqual([
      ['other', '10'],
      ['campaign-scheduler.send-requests', '12'],
      ['campaign-scheduler.send-requests', '11'],
      ['campaign-scheduler.send-requests', '10'],
    ]);
    expect(all[3]).toMatchObject({
      tenantId: 'tenant-a',
      sourceTopic: 'ums.send.requests.v1',
      sourcePartition: 3,
      key: 'tenant-a',
      value: '{"requestId":"r-1"}',
      valueEncoding: 'utf8',
      headers: { traceparent: '00-x' },
      attempts: 1,
      failedAt: new Date('2026-11-26T01:02:03.456Z'),
      replays: 0,
      replayedAt: null,
    });
  });

  it('stores what the contract allows but the columns cannot hold without failing (which would block the partition)', async () => {
    await repo.insertMany([
      letter('20', {
        sourcePartition: 1e12,
        attempts: 1e12,
        failedAt: '0500-01-01T00:00:00Z',
        key: undefined,
        value: undefined,
        valueEncoding: 'base64',
      }),
    ]);
    const [row] = await repo.list({ tenantId: null, errorCode: 'CREDENTIAL_NOT_FOUND' }, undefined, 1);
    expect(row).toMatchObject({
      sourceOffset: '20',
      sourcePartition: 4_294_967_295,
      attempts: 4_294_967_295,
      failedAt: null,
      key: null,
      value: null,
      valueEncoding: 'base64',
    });
  });

  it('filters by replay and pages oldest first for a replay', async () => {
    const [newest] = await repo.list({ tenantId: null }, undefined, 1);
    await repo.markReplayed(null, [String(newest?.id)]);
    const replayed = await repo.list({ tenantId: null, replayed: true }, undefined, 10);
    expect(replayed.map((r) => [r.id, r.replays])).toEqual([[newest?.id, 1]]);
    expect(replayed[0]?.replayedAt).toBeInstanceOf(Date);
    const upTo = await repo.newestId();
    const open = await repo.listForReplay(
      { tenantId: null, replayed: false, consumerGroup: 'campaign-scheduler.send-requests' },
      '0',
      upTo,
      2,
    );
    expect(open.map((r) => r.sourceOffset)).toEqual(['10', '11']);
    const next = await repo.listForReplay(
      { tenantId: null, replayed: false, consumerGroup: 'campaign-scheduler.send-requests' },
      String(open[1]?.id),
      upTo,
      10,
    );
    expect(next.map((r) => r.sourceOffset)).toEqual(['12']);
    // An entry stored after the replay began (a replayed message failing again) is not taken by it.
    await repo.insertMany([letter('13')]);
    expect(
      (
        await repo.listForReplay(
          { tenantId: null, replayed: false, consumerGroup: 'campaign-scheduler.send-requests' },
          String(next[0]?.id),
          upTo,
          10,
        )
      ).map((r) => r.sourceOffset),
    ).toEqual([]);
    expect(BigInt(await repo.newestId())).toBeGreaterThan(BigInt(upTo));
  });

  it("keeps each tenant to its own entries: another tenant's id is missing, lists and replays skip it", async () => {
    await repo.insertMany([
      letter('100', { consumerGroup: 'scoped', tenantId: 'tenant-x' }),
      letter('101', { consumerGroup: 'scoped', tenantId: 'tenant-y' }),
      letter('102', { consumerGroup: 'scoped', tenantId: null }),
    ]);
    const all = await repo.list({ tenantId: null, consumerGroup: 'scoped' }, undefined, 10);
    expect(all.map((r) => [r.sourceOffset, r.tenantId])).toEqual([
      ['102', null],
      ['101', 'tenant-y'],
      ['100', 'tenant-x'],
    ]);
    const [unknown, ofY, ofX] = all.map((r) => r.id) as [string, string, string];
    const scoped = (tenantId: string | null) => ({ tenantId, consumerGroup: 'scoped' });

    expect((await repo.list(scoped('tenant-x'), undefined, 10)).map((r) => r.id)).toEqual([ofX]);
    expect((await repo.list(scoped('tenant-z'), undefined, 10)).map((r) => r.id)).toEqual([]);
    expect((await repo.findById('tenant-x', ofX))?.id).toBe(ofX);
    expect(await repo.findById('tenant-x', ofY)).toBeUndefined();
    expect(await repo.findById('tenant-x', unknown)).toBeUndefined();
    expect((await repo.findById(null, unknown))?.tenantId).toBeNull();
    expect((await repo.findByIds('tenant-y', [ofX, ofY, unknown])).map((r) => r.id)).toEqual([ofY]);
    expect((await repo.findByIds(null, [ofX, ofY, unknown])).map((r) => r.id)).toEqual([ofX, ofY, unknown]);
    const upTo = await repo.newestId();
    expect(
      (await repo.listForReplay({ ...scoped('tenant-y'), replayed: false }, '0', upTo, 10)).map((r) => r.id),
    ).toEqual([ofY]);

    // A write by id for another tenant's entries changes nothing.
    await repo.markReplayed('tenant-x', [ofY, unknown]);
    expect((await repo.findByIds(null, [ofY, unknown])).map((r) => r.replays)).toEqual([0, 0]);
    await repo.markReplayed('tenant-x', [ofX]);
    expect((await repo.findById(null, ofX))?.replays).toBe(1);
  });

  it("reads a tenant's pages newest first from idx_dead_letters_tenant", async () => {
    // Thousands of rows over many tenants: on a few dozen rows the optimizer follows whatever statistics
    // the earlier tests left, and a scan of the primary key can win.
    await repo.insertMany(
      Array.from({ length: 3_000 }, (_, i) =>
        letter(String(1_000 + i), { consumerGroup: 'plan', tenantId: `plan-${i % 50}` }),
      ),
    );
    await ds.query('ANALYZE TABLE dead_letters');
    // TRADITIONAL: MySQL 9.7 prints a tree by default (explain_format); MariaDB 10.11 and MySQL 8 take it too.
    const plan = (await ds.query(
      `EXPLAIN FORMAT=TRADITIONAL SELECT id FROM dead_letters WHERE tenant_id = 'plan-1' AND id < 1000000
        ORDER BY id DESC LIMIT 10`,
    )) as { key: string | null; Extra: string | null }[];
    expect(plan[0]).toMatchObject({
      key: 'idx_dead_letters_tenant',
      Extra: expect.not.stringContaining('filesort'),
    });
    const page = await repo.list({ tenantId: 'plan-1' }, undefined, 5);
    expect(page).toHaveLength(5);
    expect(page.every((r) => r.tenantId === 'plan-1')).toBe(true);
    const ids = page.map((r) => BigInt(r.id));
    expect(ids).toEqual([...ids].sort((a, b) => (a > b ? -1 : 1)));
  });
});
