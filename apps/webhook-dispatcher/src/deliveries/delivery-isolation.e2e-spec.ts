import { waitUntil, type LoopbackSubscriber } from '@ums/testing';
import { DispatcherFixture, statusEvent } from './test/dispatcher-fixture';

jest.setTimeout(180_000);

const EVENTS_PER_PHASE = 800;
const ROUNDS = 4;
const EVENTS_PER_ROUND = 300;
const RATE_PER_SEC = 100;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

function summary(values: readonly number[]): { p50: number; p99: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): number =>
    sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * q) - 1)] ?? 0;
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? 0 };
}

describe('webhook-dispatcher: isolation from a timing-out subscriber, and the probe (real process)', () => {
  let fixture: DispatcherFixture;

  beforeAll(async () => {
    fixture = await DispatcherFixture.start('webhook_isolation', {
      LOG_LEVEL: 'error',
      WEBHOOK_RETRY_DELAYS_MS: '500,1000,2000,4000,8000',
      WEBHOOK_TIMEOUT_MS: '1000',
      // Never tombstoned here: the slow subscriber must keep timing out during the whole measurement.
      WEBHOOK_FAILURE_THRESHOLD: '1000000',
      WEBHOOK_SUBSCRIBER_REFRESH_MS: '200',
      WEBHOOK_PROBE_INTERVAL_MS: '500',
    });
  });

  afterAll(async () => {
    await fixture?.stop();
  });

  /** Publishes at a steady rate over many campaigns (partitions); returns publish times by event id. */
  async function publishPhase(prefix: string, count: number): Promise<Map<string, number>> {
    const sentAt = new Map<string, number>();
    const perTick = RATE_PER_SEC / 10;
    for (let i = 0; i < count; i += perTick) {
      const tickStarted = Date.now();
      const values = Array.from({ length: Math.min(count, i + perTick) - i }, (_, k) =>
        statusEvent(`${prefix}-${i + k}`, i + k, 'iso', `cmp-${(i + k) % 24}`),
      );
      const now = Date.now();
      for (const v of values) sentAt.set(v.eventId, now);
      await fixture.publishStatuses(values);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 100 - (Date.now() - tickStarted))));
    }
    return sentAt;
  }

  function latencies(server: LoopbackSubscriber, sentAt: Map<string, number>): number[] {
    const out: number[] = [];
    for (const received of server.received) {
      const sent = sentAt.get(received.webhookId);
      if (sent !== undefined) out.push(received.receivedAt - sent);
    }
    return out;
  }

  it('keeps the healthy subscriber p99 within 1.5x (+10 ms) while its neighbour times out on every request', async () => {
    const { server: healthy } = await fixture.subscribe('iso');
    // Warm-up: consumer groups joined, connections open.
    await publishPhase('warm', EVENTS_PER_PHASE / 2);
    await waitUntil('warm-up delivered', () => healthy.accepted.length === EVENTS_PER_PHASE / 2, {
      timeoutMs: 60_000,
    });
    const alone = await publishPhase('alone', EVENTS_PER_PHASE);
    await waitUntil('alone delivered', () => healthy.accepted.length === 1.5 * EVENTS_PER_PHASE, {
      timeoutMs: 60_000,
    });

    // The baseline: the same fan-out (two subscribers, two rows per event) with a neighbour that answers,
    // so the comparison measures what its timing out costs, not what a second subscriber costs. Rounds
    // alternate answering and hanging; the median of the rounds' p99s keeps one stall of the shared
    // machine (a few hundred ms, seen once in 17 single-phase runs, in either kind of phase) from deciding.
    const { server: neighbour } = await fixture.subscribe('iso');
    const answering: Map<string, number>[] = [];
    const hanging: Map<string, number>[] = [];
    let expected = 1.5 * EVENTS_PER_PHASE;
    for (let round = 0; round < ROUNDS; round++) {
      neighbour.mode = { kind: 'ok' };
      answering.push(await publishPhase(`answering${round}`, EVENTS_PER_ROUND));
      neighbour.mode = { kind: 'hang' };
      hanging.push(await publishPhase(`hanging${round}`, EVENTS_PER_ROUND));
      expected += 2 * EVENTS_PER_ROUND;
      const want = expected;
      await waitUntil(`round ${round} delivered`, () => healthy.accepted.length === want, {
        timeoutMs: 60_000,
      });
    }

    const roundP99s = (phases: Map<string, number>[]): number[] =>
      phases.map((phase) => summary(latencies(healthy, phase)).p99);
    const figures = {
      alone: summary(latencies(healthy, alone)),
      answering: summary(answering.flatMap((phase) => latencies(healthy, phase))),
      hanging: summary(hanging.flatMap((phase) => latencies(healthy, phase))),
      answeringRoundP99s: roundP99s(answering),
      hangingRoundP99s: roundP99s(hanging),
    };
    process.stdout.write(`healthy subscriber latency (ms): ${JSON.stringify(figures)}\n`);
    // The neighbour really was timing out on every request of the hanging phases, and the healthy one
    // got each event once.
    const hangingIds = new Set(hanging.flatMap((phase) => [...phase.keys()]));
    expect(neighbour.received.filter((r) => hangingIds.has(r.webhookId)).length).toBeGreaterThan(
      hangingIds.size / 4,
    );
    expect(healthy.received.filter((r) => hangingIds.has(r.webhookId))).toHaveLength(hangingIds.size);
    expect(healthy.invalidSignatures()).toBe(0);
    // 1.5x plus 10 ms: at p99s of 15-35 ms a few ms of scheduling jitter is half the ratio. A clean-clone
    // run (2026-11-25) failed the bare 1.5x at 33 against 19 ms (rounds 32/34/34/14 against 27/21/17/17),
    // where other runs of the same code gave 25-28 against 23-32 ms. The failure this test exists for
    // (a hanging neighbour holding the consumers) gives 1,300-3,500 ms.
    expect(median(figures.hangingRoundP99s)).toBeLessThanOrEqual(
      median(figures.answeringRoundP99s) * 1.5 + 10,
    );
  });

  it('probes a dead subscriber and resurrects it when it answers, replaying what it missed in order', async () => {
    const { server, id } = await fixture.subscribe('probe');
    server.mode = { kind: 'status', status: 500 };
    await fixture.ds.query(
      `UPDATE subscribers SET state = 'DEAD', dead_since = UTC_TIMESTAMP(3) WHERE id = ?`,
      [id],
    );
    await new Promise((resolve) => setTimeout(resolve, 500)); // every directory sees it dead
    const ids = Array.from({ length: 5 }, (_, i) => `probe-${i}`);
    await fixture.publishStatuses(ids.map((eventId, i) => statusEvent(eventId, i, 'probe', 'cmp-probe')));
    await waitUntil(
      'failed probes',
      () => server.received.filter((r) => r.webhookId.startsWith('probe_')).length >= 2,
    );
    expect(server.received.filter((r) => r.webhookId.startsWith('probe-'))).toHaveLength(0);
    server.mode = { kind: 'ok' };
    await waitUntil('resurrected by the probe and replayed', async () => {
      const read = await fixture.api<{ state: string }>('GET', `/v1/subscribers/${id}`);
      return read.body.state === 'ALIVE';
    });
    expect(server.accepted.filter((w) => w.startsWith('probe-'))).toEqual(ids);
    expect(server.invalidSignatures()).toBe(0);
  });
});
