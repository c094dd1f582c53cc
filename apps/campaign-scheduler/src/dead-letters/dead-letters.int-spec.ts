import type { DeadLetterV1 } from '@ums/contracts';
import { createDataSource, runPendingMigrations } from '@ums/platform';
import { createTestDatabase } from '@ums/testing';
import type { DataSource } from 'typeorm';
import { DeadLettersRepository } from './dead-letters.repository';

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

  const letter = (offset: string, over: Partial<DeadLetterV1> = {}): DeadLetterV1 => ({
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
    const all = await repo.list({}, undefined, 10);
    expect(all.map((r) => [r.consumerGroup, r.sourceOffset])).toEqual([
      ['other', '10'],
      ['campaign-scheduler.send-requests', '12'],
      ['campaign-scheduler.send-requests', '11'],
      ['campaign-scheduler.send-requests', '10'],
    ]);
    expect(all[3]).toMatchObject({
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
    const [row] = await repo.list({ errorCode: 'CREDENTIAL_NOT_FOUND' }, undefined, 1);
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
    const [newest] = await repo.list({}, undefined, 1);
    await repo.markReplayed([String(newest?.id)]);
    const replayed = await repo.list({ replayed: true }, undefined, 10);
    expect(replayed.map((r) => [r.id, r.replays])).toEqual([[newest?.id, 1]]);
    expect(replayed[0]?.replayedAt).toBeInstanceOf(Date);
    const upTo = await repo.newestId();
    const open = await repo.listForReplay(
      { replayed: false, consumerGroup: 'campaign-scheduler.send-requests' },
      '0',
      upTo,
      2,
    );
    expect(open.map((r) => r.sourceOffset)).toEqual(['10', '11']);
    const next = await repo.listForReplay(
      { replayed: false, consumerGroup: 'campaign-scheduler.send-requests' },
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
          { replayed: false, consumerGroup: 'campaign-scheduler.send-requests' },
          String(next[0]?.id),
          upTo,
          10,
        )
      ).map((r) => r.sourceOffset),
    ).toEqual([]);
    expect(BigInt(await repo.newestId())).toBeGreaterThan(BigInt(upTo));
  });
});
