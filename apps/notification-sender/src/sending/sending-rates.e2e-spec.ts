import { Channel, SendRequestKind, type SendRequestV1, Topics } from '@ums/contracts';
import { KafkaNames, messageTime } from '@ums/platform';
import { insertSimulatorCredential, seedCampaign, sumMetric, testKafka, waitUntil } from '@ums/testing';
import { SendingFixture } from './test/sending-fixture';

jest.setTimeout(600_000);
// These checks count sends per second where the provider sees them: at the simulator, on arrival.
// The limiter grants at most rate x 1.025 in any second (burstMs 25, rate-limit.tuning.ts; rate-limit.int-spec.ts
// checks grants per second against 210). Arrivals also carry the delays between grant and arrival (a
// GC pause or a busy event loop in a sender or in the simulator), which shift sends granted apart into
// one second: on a 2-core host, 205-218 in the busiest 1-s span, and 210-247 when the host ran at half
// speed (calibration 420 ms, tools/bench/host-figures.ts), with no calendar second above 198 where the
// test printed them. The sender
// therefore asks for 5% less than the ceiling (SEND_RATE_HEADROOM_RATIO); the busiest calendar second
// must stay within the 5%, and the 10-s total, where shifts cancel out, within 3% of 200/s.
// One retry tells a stalled host from a limiter that lets too much through.
jest.retryTimes(1, { logErrorsBeforeRetry: true });

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('rate limits end to end: three senders, one credential (real Kafka, MariaDB, Redis, processes)', () => {
  let fixture: SendingFixture;

  beforeAll(async () => {
    fixture = await SendingFixture.start('sender_rates');
    await Promise.all(['a', 'b', 'c'].map((name) => fixture.startSender(name)));
  });

  afterAll(async () => {
    await fixture?.stop();
  });

  // Ids are new on each try (jest.retryTimes reruns a test on the same fixture).
  let tries = 0;
  // A run left sending would compete for the senders in the next test.
  const started: string[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((runId) => stopRun(runId)));
  });

  async function dbNow(): Promise<string> {
    // As text: the driver would turn a DATETIME into a JS Date in the test's time zone.
    const [row] = (await fixture.ds.query(
      `SELECT DATE_FORMAT(UTC_TIMESTAMP(3), '%Y-%m-%d %H:%i:%s.%f') AS now`,
    )) as { now: string }[];
    return String(row?.now);
  }

  async function sentBetween(credentialId: string, from: string, to: string): Promise<Map<string, number>> {
    const rows = (await fixture.ds.query(
      `SELECT campaign_id, COUNT(*) AS n FROM messages
        WHERE credential_id = ? AND sent_at >= ? AND sent_at < ? GROUP BY campaign_id`,
      [credentialId, from, to],
    )) as { campaign_id: string; n: number | string }[];
    return new Map(rows.map((r) => [r.campaign_id, Number(r.n)]));
  }

  async function addCredential(
    id: string,
    ceilingPerSec: number,
    floorPerSec: number,
    simulator: object,
  ): Promise<void> {
    await fixture.simulator.putCredential(id, {
      provider: 'simulator',
      latency: { minMs: 1, p50Ms: 5, p99Ms: 25 },
      callbacks: { enabled: false },
      ...simulator,
    });
    await insertSimulatorCredential(fixture.db.settings, {
      id,
      tenantId: 'acme',
      baseUrl: fixture.simulator.url,
      ceilingPerSec,
      floorPerSec,
    });
  }

  /** What the senders' metrics say of a credential (to tell a slow host from AIMD cutting the rate). */
  async function senderFigures(credentialId: string): Promise<string> {
    const urls = fixture.senders
      .filter((sender) => sender.process.running)
      .map((sender) => sender.managementUrl);
    const credential = { credential: credentialId };
    const rates = await Promise.all(urls.map((url) => sumMetric([url], 'ums_rate_limit_rate', credential)));
    const congestion = await sumMetric(urls, 'ums_rate_limit_congestion_events_total', credential);
    const retaken = await sumMetric(urls, 'ums_sender_grants_retaken_total');
    return `rate ${rates.map((r) => r.toFixed(0)).join('/')}, congestion events ${congestion}, grants retaken ${retaken}`;
  }

  async function stopRun(runId: string): Promise<void> {
    await fixture.ds.query(`UPDATE runs SET state = 'STOPPED' WHERE id = ?`, [runId]);
  }

  it('keeps a 200/s credential under its limit, shares it between two campaigns and lets single sends go first', async () => {
    const t = ++tries;
    const credentialId = `cred_rate_${t}`;
    const [bigId, smallId] = [`cmp_big_${t}`, `cmp_small_${t}`];
    await addCredential(credentialId, 200, 20, {});
    await seedCampaign(fixture.db.settings, {
      campaignId: bigId,
      tenantId: 'acme',
      credentialId,
      contacts: 100_000,
    });
    await seedCampaign(fixture.db.settings, {
      campaignId: smallId,
      tenantId: 'acme',
      credentialId,
      contacts: 4_000,
    });
    const big = await fixture.createRun(bigId);
    started.push(big);
    await waitUntil(
      'the big campaign saturates the credential',
      async () => (await fixture.counters(big)).sent >= 600,
      {
        timeoutMs: 60_000,
      },
    );
    const small = await fixture.createRun(smallId);
    started.push(small);
    await waitUntil('the small campaign sending', async () => (await fixture.counters(small)).sent >= 200, {
      timeoutMs: 60_000,
    });

    // Fair shares over 10 seconds while both campaigns want more than the credential gives.
    const from = await dbNow();
    await sleep(10_000);
    const shares = await sentBetween(credentialId, from, await dbNow());
    const bigSent = shares.get(bigId) ?? 0;
    const smallSent = shares.get(smallId) ?? 0;

    // Single sends while the credential is saturated: through the scheduler, onto the priority lane.
    const producer = testKafka().producer();
    await producer.connect();
    const waits: number[] = [];
    try {
      for (let i = 0; i < 5; i++) {
        const request: SendRequestV1 = {
          requestId: `otp-${t}-${i}`,
          kind: SendRequestKind.Single,
          tenantId: 'acme',
          channel: Channel.Sms,
          credentialId,
          content: { text: 'Your code is 1234' },
          recipient: { address: `+49151234567${String(10 + i)}` },
          requestedAt: new Date().toISOString(),
        };
        await producer.send({
          topic: new KafkaNames(fixture.namespace).topic(Topics.sendRequests.name),
          messages: [{ key: request.tenantId, value: JSON.stringify(request) }],
        });
        const row = await waitUntil(
          `single send ${i} sent`,
          async () => {
            const rows = (await fixture.ds.query(
              `SELECT state, TIMESTAMPDIFF(MICROSECOND, created_at, ${messageTime('sent_at')}) / 1000 AS waited_ms
                 FROM messages WHERE tenant_id = 'acme' AND idempotency_key = ?`,
              [`otp-${t}-${i}`],
            )) as { state: string; waited_ms: string | number | null }[];
            return rows[0]?.state === 'SENT' ? rows[0] : undefined;
          },
          { timeoutMs: 30_000, intervalMs: 50 },
        );
        waits.push(Number(row.waited_ms));
        await sleep(500);
      }
    } finally {
      await producer.disconnect();
    }
    const stats = await fixture.simulator.stats(credentialId);
    await Promise.all([stopRun(big), stopRun(small)]);
    process.stdout.write(
      `rate test: max ${stats.maxPerSecond} sends in any 1 s window (limit 200); shares over 10 s: big ${bigSent}, small ${smallSent}; ` +
        `single-send waits (ms): ${waits.map((w) => w.toFixed(0)).join(', ')}; duplicates ${stats.duplicates}; ` +
        `senders: ${await senderFigures(credentialId)}; ` +
        `accepted per calendar second: ${stats.perSecond.map((second) => second.accepted).join(' ')}\n`,
    );

    // The tolerance, 5% over the limit, in the busiest calendar second at the provider (as a
    // provider meters a credential). Any 1-s span also carries the shifts described above: at most 30%
    // over, which a limiter letting a second's tokens through at once would still exceed.
    const busiestSecond = Math.max(...stats.perSecond.map((second) => second.accepted));
    expect(busiestSecond).toBeLessThanOrEqual(210);
    expect(stats.maxPerSecond).toBeLessThanOrEqual(260);
    expect(stats.duplicates).toBe(0);
    const total = bigSent + smallSent;
    expect(total).toBeLessThanOrEqual(2_060); // 200/s for 10 s, + 3%
    expect(total).toBeGreaterThan(1_500); // the credential was in use: about 200/s for 10 s
    expect(bigSent / total).toBeGreaterThanOrEqual(0.4);
    expect(bigSent / total).toBeLessThanOrEqual(0.6);
    expect(Math.max(...waits)).toBeLessThan(1_000);
  });

  it('AIMD settles between half and all of a provider that delivers 65% of the ceiling, and follows it when capacity doubles', async () => {
    const t = ++tries;
    const credentialId = `cred_aimd_${t}`;
    await addCredential(credentialId, 1_000, 50, { capacityTps: 650 });
    await seedCampaign(fixture.db.settings, {
      campaignId: `cmp_aimd_${t}`,
      tenantId: 'acme',
      credentialId,
      contacts: 80_000,
    });
    const run = await fixture.createRun(`cmp_aimd_${t}`);
    started.push(run);
    await waitUntil('sending started', async () => (await fixture.counters(run)).sent > 0, {
      timeoutMs: 60_000,
    });

    await sleep(30_000);
    const settled = await perSecond(credentialId, 10);
    await fixture.simulator.patchCredential(credentialId, { capacityTps: 1_300 });
    await sleep(20_000);
    const doubled = await perSecond(credentialId, 5);
    await stopRun(run);
    process.stdout.write(
      `AIMD test: at capacity 650/s, settled ${settled.accepted.toFixed(0)}/s accepted with ${(settled.throttledShare * 100).toFixed(2)}% throttled; ` +
        `after capacity 1300/s: ${doubled.accepted.toFixed(0)}/s accepted (ceiling 1000)\n`,
    );

    expect(settled.accepted).toBeGreaterThanOrEqual(325);
    expect(settled.accepted).toBeLessThanOrEqual(650);
    expect(settled.throttledShare).toBeLessThan(0.05);
    expect(doubled.accepted).toBeGreaterThan(650);
  });

  /** Accepted per second and the throttled share over the last `seconds` full seconds, from the simulator. */
  async function perSecond(
    credentialId: string,
    seconds: number,
  ): Promise<{ accepted: number; throttledShare: number }> {
    await sleep(seconds * 1_000);
    const stats = await fixture.simulator.stats(credentialId);
    const now = Math.floor(Date.now() / 1000);
    const window = stats.perSecond.filter((s) => s.second >= now - seconds && s.second < now);
    const accepted = window.reduce((sum, s) => sum + s.accepted, 0);
    const throttled = window.reduce((sum, s) => sum + s.throttled, 0);
    return { accepted: accepted / seconds, throttledShare: throttled / Math.max(1, accepted + throttled) };
  }
});
