import { randomBytes } from 'node:crypto';
import { createDataSource, runPendingMigrations } from '@ums/platform';
import { createTestDatabase, testRedisUrl } from '@ums/testing';
import { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import type { CampaignContentRepository } from './campaign-content.repository';
import { type ClaimResult, MessageClaimsRepository } from './message-claims.repository';
import type { RateLimitService } from '../rate-limit/rate-limit.service';
import {
  CountingProvider,
  type HarnessOptions,
  SendBatchHarness,
  type SeededRun,
  seedRun,
  statesOf,
} from './test/send-batch-harness';
import { claimCreditRepositories } from './test/claims-repository';

jest.setTimeout(60_000);

/** What mysql2 throws when the server is gone: an infrastructure error, retried by the consumer. */
function connectionRefused(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3306'), { code: 'ECONNREFUSED' });
}

/** Claims that take a while (a slow database), so that the grant taken before them goes stale. */
class SlowClaims extends MessageClaimsRepository {
  failRefresh = 0;
  afterClaim: ((token: string) => Promise<void>) | undefined;

  override async claim(ids: readonly string[], token: string): Promise<ClaimResult> {
    await new Promise((resolve) => setTimeout(resolve, 80));
    const result = await super.claim(ids, token);
    await this.afterClaim?.(token);
    return result;
  }

  override async refresh(token: string, ids: readonly string[]): Promise<string[]> {
    if (this.failRefresh > 0) {
      this.failRefresh--;
      throw connectionRefused();
    }
    return super.refresh(token, ids);
  }
}

/**
 * The claim lifecycle of SendBatchService on real MariaDB and Redis, with a provider that counts
 * what reaches it: whatever fails between the grant and the provider call, a message ends PENDING
 * (and is sent when the batch is handled again) or SENT, never UNKNOWN without a send, never twice.
 */
describe('claims around the provider call (real MariaDB and Redis)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let redis: Redis;
  const prefix = `t-claims-${randomBytes(4).toString('hex')}:`;
  let suite = 0;
  const slowClaims = (): SlowClaims => {
    const { credits, ledger } = claimCreditRepositories();
    return new SlowClaims(ds, credits, ledger);
  };

  beforeAll(async () => {
    db = await createTestDatabase('send_batch_claims');
    ds = createDataSource({ ...db.settings, poolSize: 8 });
    await ds.initialize();
    await runPendingMigrations(ds);
    redis = new Redis(testRedisUrl(), { enableAutoPipelining: true, maxRetriesPerRequest: 3 });
  });

  afterAll(async () => {
    const keys = (await redis?.keys(`${prefix}*`)) ?? [];
    if (keys.length > 0) await redis.del(...keys);
    await redis?.quit();
    await ds?.destroy();
    await db?.drop();
  });

  async function setUp(
    n: number,
    options: Partial<HarnessOptions> & { provider?: CountingProvider } = {},
  ): Promise<{ harness: SendBatchHarness; run: SeededRun; provider: CountingProvider }> {
    const name = `c${++suite}`;
    const credentialId = `cred_${name}`;
    const run = await seedRun(ds, db.settings, name, credentialId, n);
    const provider = options.provider ?? new CountingProvider(16);
    const harness = new SendBatchHarness({
      ds,
      redis,
      keyPrefix: `${prefix}${name}:`,
      credentialId,
      ...options,
      provider,
    });
    return { harness, run, provider };
  }

  /** Handles the run's unsettled messages again, as the consumer does after an error or a retry tier. */
  async function sendRest(harness: SendBatchHarness, run: SeededRun): Promise<void> {
    for (let round = 0; round < 5; round++) {
      const rest = await harness.claims.unsettledAmong(run.ids);
      if (rest.length === 0) return;
      await harness.service.send(harness.batch(run, rest));
    }
  }

  async function expectAllSentOnce(
    harness: SendBatchHarness,
    run: SeededRun,
    provider: CountingProvider,
  ): Promise<void> {
    expect(await statesOf(ds, run.runId)).toEqual({
      SENT: { count: run.ids.length, attempts: run.ids.length },
    });
    expect(provider.duplicates()).toEqual([]);
    expect(new Set(provider.sends)).toEqual(new Set(run.ids));
    const sent = harness.statuses.filter((s) => s.status === 'SENT').map((s) => s.messageId);
    expect(new Set(sent)).toEqual(new Set(run.ids));
    expect(harness.statuses.filter((s) => s.status === 'UNKNOWN')).toEqual([]);
  }

  it('leaves nothing claimed when the campaign content cannot be read after the grant', async () => {
    let failContent = true;
    const { harness, run, provider } = await setUp(20, {
      campaigns: (real) =>
        ({
          contentOf: (id: string) => (failContent ? Promise.reject(connectionRefused()) : real.contentOf(id)),
        }) as unknown as CampaignContentRepository,
    });
    await expect(harness.service.send(harness.batch(run, run.ids))).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
    expect(await statesOf(ds, run.runId)).toEqual({ PENDING: { count: 20, attempts: 0 } });
    expect(provider.sends).toEqual([]);

    failContent = false;
    await sendRest(harness, run);
    await expectAllSentOnce(harness, run, provider);
  });

  it('gives the claim back when the claim check before the provider call fails', async () => {
    const claims = slowClaims();
    claims.failRefresh = 1;
    // The process stalls after claiming (a claim older than a second is checked again before the call).
    claims.afterClaim = () => new Promise((resolve) => setTimeout(resolve, 1_100));
    const { harness, run, provider } = await setUp(20, { claims });
    await expect(harness.service.send(harness.batch(run, run.ids))).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
    // Back to PENDING with the attempt given back: nothing was sent.
    expect(await statesOf(ds, run.runId)).toEqual({ PENDING: { count: 20, attempts: 0 } });
    expect(provider.sends).toEqual([]);

    await sendRest(harness, run);
    await expectAllSentOnce(harness, run, provider);
  });

  it('gives the claim back when retaking a stale grant fails in Redis', async () => {
    let failRetake = true;
    let takes = 0;
    const claims = slowClaims();
    const { harness, run, provider } = await setUp(20, {
      claims,
      rateLimit: (real) =>
        ({
          take: (...args: Parameters<RateLimitService['take']>) => {
            // The first take is the batch's grant; the claim makes it stale, so the next is the retake.
            if (++takes > 1 && failRetake) {
              return Promise.reject(
                Object.assign(new Error('Reached the max retries per request limit (which is 3).'), {
                  name: 'MaxRetriesPerRequestError',
                }),
              );
            }
            return real.take(...args);
          },
          giveBack: real.giveBack.bind(real),
          report: real.report.bind(real),
        }) as unknown as RateLimitService,
    });
    await expect(harness.service.send(harness.batch(run, run.ids))).rejects.toMatchObject({
      name: 'MaxRetriesPerRequestError',
    });
    expect(takes).toBeGreaterThanOrEqual(2);
    expect(await statesOf(ds, run.runId)).toEqual({ PENDING: { count: 20, attempts: 0 } });
    expect(provider.sends).toEqual([]);

    failRetake = false;
    await sendRest(harness, run);
    await expectAllSentOnce(harness, run, provider);
  });

  it('sends nothing when a stale grant cannot be retaken within the claim window: PENDING, then sent', async () => {
    let starve = true;
    let takes = 0;
    const claims = slowClaims();
    const { harness, run, provider } = await setUp(20, {
      claims,
      sendingEnv: { SENDER_CLAIM_TIMEOUT_MS: '6100', SENDER_CLAIM_RECORD_MARGIN_MS: '100' },
      providersEnv: { PROVIDER_CONNECT_TIMEOUT_MS: '1000', PROVIDER_HTTP_TIMEOUT_MS: '1000' },
      rateLimit: (real) =>
        ({
          take: (request: Parameters<RateLimitService['take']>[0], signal?: AbortSignal) => {
            // The retake waits behind a credential saturated by other campaigns: no token comes.
            if (++takes > 1 && starve) {
              return new Promise((_, reject) => {
                signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
              });
            }
            return real.take(request, signal);
          },
          giveBack: real.giveBack.bind(real),
          report: real.report.bind(real),
        }) as unknown as RateLimitService,
    });
    await harness.service.send(harness.batch(run, run.ids));
    expect(takes).toBe(2);
    // Back to PENDING on the first retry tier, attempt given back, nothing sent, nothing UNKNOWN.
    expect(await statesOf(ds, run.runId)).toEqual({ PENDING: { count: 20, attempts: 0 } });
    expect(provider.sends).toEqual([]);
    expect(harness.retries).toHaveLength(1);
    expect(
      harness.statuses.map((s) => [s.status, s.errorCode]).filter(([status]) => status !== 'PENDING'),
    ).toEqual([]);

    starve = false;
    await sendRest(harness, run);
    await expectAllSentOnce(harness, run, provider);
  });

  it('sends nothing queued past the claim window: those go back to PENDING and are sent on the retry', async () => {
    // One request at a time, 400 ms each: 12 messages need 4.8 s, the claim window is 3 s
    // (6,100 - 100 margin - 3,000 for one request's worst case).
    const provider = new CountingProvider(1, 400);
    const { harness, run } = await setUp(12, {
      provider,
      sendingEnv: { SENDER_CLAIM_TIMEOUT_MS: '6100', SENDER_CLAIM_RECORD_MARGIN_MS: '100' },
      providersEnv: { PROVIDER_CONNECT_TIMEOUT_MS: '1000', PROVIDER_HTTP_TIMEOUT_MS: '1000' },
    });
    // The expiry sweep runs all along, as every replica's does.
    let sweeping = true;
    const expired: string[] = [];
    const sweeper = (async (): Promise<void> => {
      while (sweeping) {
        const changes = await harness.claims.expireClaims(6100, 1000, () => Promise.resolve());
        expired.push(...changes.map((c) => c.messageId));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    try {
      await harness.service.send(harness.batch(run, run.ids));
    } finally {
      sweeping = false;
      await sweeper;
    }
    const states = await statesOf(ds, run.runId);
    const sentFirst = provider.sends.length;
    expect(expired).toEqual([]);
    expect(states['UNKNOWN']).toBeUndefined();
    expect(states['SENT']?.count).toBe(sentFirst);
    // 12 sequential requests of 400 ms cannot all start within 3 s.
    expect(states['PENDING']?.count).toBe(12 - sentFirst);
    expect(12 - sentFirst).toBeGreaterThan(0);
    expect(states['PENDING']?.attempts).toBe(0);
    expect(harness.retries).toHaveLength(1);

    await sendRest(harness, run);
    await expectAllSentOnce(harness, run, provider);
  });

  it('refreshes a claim that aged past the timeout before the provider call, so a sweep meanwhile takes nothing', async () => {
    const claims = slowClaims();
    // As if the process stalled after claiming: the claim is older than the timeout, not yet swept.
    claims.afterClaim = async (token) => {
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await ds.query(
        `UPDATE messages SET claimed_at = DATE_SUB(claimed_at, INTERVAL 1 HOUR) WHERE claim_token = ?`,
        [token],
      );
    };
    const { harness, run, provider } = await setUp(10, { claims });
    const expired: string[] = [];
    provider.onRequest = async () => {
      const changes = await harness.claims.expireClaims(
        harness.sendingConfig.SENDER_CLAIM_TIMEOUT_MS,
        1000,
        () => Promise.resolve(),
      );
      expired.push(...changes.map((c) => c.messageId));
    };
    await harness.service.send(harness.batch(run, run.ids));
    expect(expired).toEqual([]);
    await expectAllSentOnce(harness, run, provider);
  });

  it('keeps a SENT result and its provider id when the claim expired while the request was out', async () => {
    const { harness, run, provider } = await setUp(5);
    const expired: string[] = [];
    provider.onRequest = async (message) => {
      // The sweep of a replica that saw this claim as dead (an event loop stalled past the timeout).
      await ds.query(`UPDATE messages SET claimed_at = DATE_SUB(claimed_at, INTERVAL 1 HOUR) WHERE id = ?`, [
        message.messageId,
      ]);
      const changes = await harness.claims.expireClaims(60_000, 1000, () => Promise.resolve());
      expired.push(...changes.map((c) => c.messageId));
    };
    await harness.service.send(harness.batch(run, run.ids));
    expect(new Set(expired)).toEqual(new Set(run.ids));
    const rows = (await ds.query(
      `SELECT m.id, m.state, p.provider_message_id FROM messages m LEFT JOIN message_provider_ids p ON p.message_id = m.id WHERE m.run_id = ? ORDER BY m.id`,
      [run.runId],
    )) as { id: string; state: string; provider_message_id: string | null }[];
    expect(rows.map((r) => [String(r.id), r.state, r.provider_message_id])).toEqual(
      run.ids.map((id) => [id, 'SENT', `p-${id}`]),
    );
    expect(provider.duplicates()).toEqual([]);
    expect(provider.sends).toHaveLength(5);
    // Announced as the provider's word settling UNKNOWN.
    expect(
      harness.statuses.filter((s) => s.status === 'SENT').map((s) => [s.previous, s.providerMessageId]),
    ).toEqual(run.ids.map((id) => ['UNKNOWN', `p-${id}`]));
  });
});
