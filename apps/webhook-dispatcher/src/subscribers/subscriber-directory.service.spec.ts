import { randomBytes } from 'node:crypto';
import { generateWebhookSecret, signWebhook, webhookSecretKey } from '@ums/domain';
import { MetricsRegistry, SecretBox } from '@ums/platform';
import type { PinoLogger } from 'nestjs-pino';
import { DeliveriesConfig } from '../deliveries/deliveries.config';
import { SubscriberDirectory } from './subscriber-directory.service';
import type { SubscriberRecord } from './subscriber.record';
import { SubscribersMetrics } from './subscribers.metrics';
import type { SubscribersRepository } from './subscribers.repository';

const key = (id: string): { id: string; key: Buffer } => ({ id, key: randomBytes(32) });
const box = new SecretBox([key('k2'), key('k1')]);
/** A ring the directory does not have: what it sealed is unreadable to the directory. */
const retired = new SecretBox([key('k0')]);

function record(
  id: string,
  tenantId: string,
  sealedSecret: string,
  extra: Partial<SubscriberRecord> = {},
): SubscriberRecord {
  const now = new Date();
  return {
    id,
    tenantId,
    url: 'https://hooks.example.com/x',
    eventTypes: ['message.status'],
    campaignId: null,
    internal: false,
    maxEventsPerRequest: 1,
    sealedSecret,
    sealedPreviousSecret: null,
    previousSecretExpiresAt: null,
    state: 'ALIVE',
    lastError: null,
    lastSuccessAt: null,
    lastFailureAt: null,
    deadSince: null,
    createdAt: now,
    updatedAt: now,
    ...extra,
  };
}

interface Logged {
  readonly level: string;
  readonly context: Record<string, unknown>;
  readonly message: string;
}

/** `read` runs after the rows are read and before the load goes on (a slow query). */
function directoryOver(
  records: () => SubscriberRecord[],
  read: () => Promise<void> = () => Promise.resolve(),
): {
  directory: SubscriberDirectory;
  logged: Logged[];
  metrics: SubscribersMetrics;
} {
  const logged: Logged[] = [];
  const log =
    (level: string) =>
    (context: Record<string, unknown>, message: string): void => {
      logged.push({ level, context, message });
    };
  const logger = { info: log('info'), warn: log('warn'), error: log('error') } as unknown as PinoLogger;
  const all = async (): Promise<SubscriberRecord[]> => {
    const rows = records();
    await read();
    return rows;
  };
  const repository = { all } as unknown as SubscribersRepository;
  const metrics = new SubscribersMetrics(new MetricsRegistry('test'));
  return {
    directory: new SubscriberDirectory(repository, box, new DeliveriesConfig(), metrics, logger),
    logged,
    metrics,
  };
}

async function gauge(metrics: SubscribersMetrics): Promise<number> {
  return (await metrics.secretUnreadable.get()).values[0]?.value ?? Number.NaN;
}

describe('SubscriberDirectory', () => {
  const secret = generateWebhookSecret();

  it('reloads after an API change made while a load that read before it was in flight', async () => {
    let rows = [record('sub_old', 't1', box.seal(secret))];
    let reads = 0;
    let release: () => void = () => undefined;
    const firstReadHeld = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { directory } = directoryOver(
      () => rows,
      () => (++reads === 1 ? firstReadHeld : Promise.resolve()),
    );
    const inFlight = directory.reload();
    // A subscriber created (committed) while that load, which read the table before it, is still running.
    rows = [...rows, record('sub_new', 't1', box.seal(secret))];
    const afterChange = [directory.reloadAfterChange(), directory.reloadAfterChange()];
    release();
    await Promise.all([inFlight, ...afterChange]);

    expect(directory.get('sub_new')).toBeDefined();
    // One more load for both callers that came during the first.
    expect(reads).toBe(2);
  });

  it('takes out only the subscribers whose secret does not open: logged once by code, counted, back once readable', async () => {
    const unreadableSecret = generateWebhookSecret();
    let rows = [
      record('sub_good', 't1', box.seal(secret)),
      record('sub_retired', 't1', retired.seal(unreadableSecret)),
      record('sub_malformed', 't2', 'v1:not-sealed'),
    ];
    const { directory, logged, metrics } = directoryOver(() => rows);
    await directory.reload();

    const good = directory.get('sub_good');
    expect(good?.secretUnreadable).toBeUndefined();
    expect(good?.keys).toHaveLength(1);
    const expected = signWebhook([webhookSecretKey(secret)], 'evt', 1, '{}');
    expect(signWebhook(good?.keys ?? [], 'evt', 1, '{}')).toEqual(expected);
    expect(directory.get('sub_retired')).toMatchObject({ keys: [], secretUnreadable: 'SECRET_KEY_UNKNOWN' });
    expect(directory.get('sub_malformed')).toMatchObject({ keys: [], secretUnreadable: 'SECRET_MALFORMED' });
    expect(await gauge(metrics)).toBe(2);
    const errors = logged.filter((l) => l.level === 'error');
    expect(errors.map((l) => l.context)).toEqual([
      { subscriberId: 'sub_retired', tenantId: 't1', code: 'SECRET_KEY_UNKNOWN' },
      { subscriberId: 'sub_malformed', tenantId: 't2', code: 'SECRET_MALFORMED' },
    ]);
    const text = JSON.stringify(logged);
    for (const leak of [secret, unreadableSecret, rows[1]?.sealedSecret ?? '?'])
      expect(text).not.toContain(leak);

    // Reloads do not log it again.
    await directory.reload();
    await directory.reload();
    expect(logged).toHaveLength(2);

    // The retired subscriber's secret rotated (re-sealed with the current key): delivered again.
    rows = [
      rows[0] as SubscriberRecord,
      record('sub_retired', 't1', box.seal(generateWebhookSecret())),
      rows[2] as SubscriberRecord,
    ];
    await directory.reload();
    expect(directory.get('sub_retired')?.keys).toHaveLength(1);
    expect(directory.get('sub_retired')?.secretUnreadable).toBeUndefined();
    expect(await gauge(metrics)).toBe(1);
    expect(logged[2]).toMatchObject({
      level: 'info',
      context: { subscriberId: 'sub_retired', was: 'current:SECRET_KEY_UNKNOWN' },
    });
  });

  it('signs with the current secret alone when only the previous one does not open, and still counts it readable', async () => {
    const { directory, logged, metrics } = directoryOver(() => [
      record('sub_rotated', 't1', box.seal(secret), {
        sealedPreviousSecret: retired.seal(generateWebhookSecret()),
        previousSecretExpiresAt: new Date(Date.now() + 60_000),
      }),
      record('sub_both', 't1', box.seal(secret), {
        sealedPreviousSecret: box.seal(generateWebhookSecret()),
        previousSecretExpiresAt: new Date(Date.now() + 60_000),
      }),
    ]);
    await directory.reload();
    expect(directory.get('sub_rotated')?.keys).toHaveLength(1);
    expect(directory.get('sub_rotated')?.secretUnreadable).toBeUndefined();
    expect(directory.get('sub_both')?.keys).toHaveLength(2);
    expect(await gauge(metrics)).toBe(0);
    expect(logged.map((l) => [l.level, l.context])).toEqual([
      ['warn', { subscriberId: 'sub_rotated', tenantId: 't1', code: 'SECRET_KEY_UNKNOWN' }],
    ]);
  });

  it("matches an event against its tenant's subscribers only, never reading another tenant's", async () => {
    const reads = new Map<string, number>();
    // Another tenant's record counts every property read after the load.
    let loaded = false;
    const watched = (r: SubscriberRecord): SubscriberRecord =>
      new Proxy(r, {
        get(target, property, receiver) {
          if (loaded) reads.set(target.id, (reads.get(target.id) ?? 0) + 1);
          return Reflect.get(target, property, receiver) as unknown;
        },
      });
    const rows = [
      record('sub_a1', 'tenant-a', box.seal(secret)),
      record('sub_a2', 'tenant-a', box.seal(secret), { campaignId: 'cmp-2' }),
      record('sub_a3', 'tenant-a', box.seal(secret), { eventTypes: ['message.inbound'] }),
      record('sub_a4', 'tenant-a', box.seal(secret), { state: 'DISABLED' }),
      record('sub_a5', 'tenant-a', box.seal(secret), { state: 'DEAD' }),
      ...Array.from({ length: 50 }, (_, i) =>
        watched(record(`sub_b${i}`, `tenant-b${i % 5}`, box.seal(secret))),
      ),
    ];
    const { directory } = directoryOver(() => rows);
    await directory.reload();
    loaded = true;

    const ids = (campaignId: string): string[] =>
      directory
        .matching({ tenantId: 'tenant-a', eventType: 'message.status', campaignId })
        .map((s) => s.record.id);
    expect(ids('cmp-1')).toEqual(['sub_a1', 'sub_a5']);
    expect(ids('cmp-2')).toEqual(['sub_a1', 'sub_a2', 'sub_a5']);
    expect(
      directory.matching({ tenantId: 'tenant-a', eventType: 'message.inbound' }).map((s) => s.record.id),
    ).toEqual(['sub_a3']);
    expect(directory.matching({ tenantId: 'tenant-none', eventType: 'message.status' })).toEqual([]);
    expect([...reads.keys()]).toEqual([]);

    const b = directory.matching({ tenantId: 'tenant-b3', eventType: 'message.status', campaignId: 'c' });
    expect(b.map((s) => s.record.id)).toEqual(Array.from({ length: 10 }, (_, i) => `sub_b${i * 5 + 3}`));
    expect([...reads.keys()].sort()).toEqual(b.map((s) => s.record.id).sort());
  });
});
