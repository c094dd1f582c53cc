import { Topics } from '@ums/contracts';
import { KafkaNames, messageTime } from '@ums/platform';
import { insertSimulatorCredential, seedCampaign, sumMetric, testKafka, waitUntil } from '@ums/testing';
import { SendingFixture } from './test/sending-fixture';

jest.setTimeout(300_000);

interface MessageRow {
  id: string | number;
  state: string;
  attempts: number;
  reason: string | null;
  error_code: string | null;
  waited_ms: number | string | null;
}

async function messages(fixture: SendingFixture, runId: string): Promise<MessageRow[]> {
  return (await fixture.ds.query(
    `SELECT id, state, attempts, reason, error_code,
            TIMESTAMPDIFF(MICROSECOND, created_at, ${messageTime('sent_at')}) / 1000 AS waited_ms
       FROM messages WHERE run_id = ? ORDER BY id`,
    [runId],
  )) as MessageRow[];
}

async function tierRecords(namespace: string, tier: string): Promise<number> {
  const admin = testKafka().admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(new KafkaNames(namespace).topic(tier));
    return offsets.reduce((sum, p) => sum + Number(p.high) - Number(p.low), 0);
  } finally {
    await admin.disconnect();
  }
}

async function startCampaign(
  fixture: SendingFixture,
  name: string,
  recipients: number,
  simulator: Record<string, unknown>,
  limits: { ceilingPerSec: number; floorPerSec: number } = { ceilingPerSec: 500, floorPerSec: 50 },
): Promise<{ credentialId: string; runId: string }> {
  const credentialId = `cred_${name}`;
  await fixture.simulator.putCredential(credentialId, {
    provider: 'simulator',
    latency: { minMs: 1, p50Ms: 5, p99Ms: 20 },
    callbacks: { enabled: false },
    ...simulator,
  });
  await insertSimulatorCredential(fixture.db.settings, {
    id: credentialId,
    tenantId: 'acme',
    baseUrl: fixture.simulator.url,
    ...limits,
  });
  await seedCampaign(fixture.db.settings, {
    campaignId: `cmp_${name}`,
    tenantId: 'acme',
    credentialId,
    contacts: recipients,
  });
  return { credentialId, runId: await fixture.createRun(`cmp_${name}`) };
}

describe('send retries on the real tiers (5 s)', () => {
  let fixture: SendingFixture;

  beforeAll(async () => {
    fixture = await SendingFixture.start('sender_retries');
    await Promise.all([fixture.startSender('a'), fixture.startSender('b')]);
  });

  afterAll(async () => {
    await fixture?.stop();
  });

  it('retries a retryable failure on its tier, not before its delay, and it succeeds once', async () => {
    // A floor high enough that AIMD, cutting on the 503s, still lets every first attempt out at once.
    const { credentialId, runId } = await startCampaign(
      fixture,
      'retry',
      300,
      { error5xxRate: 1 },
      { ceilingPerSec: 2_000, floorPerSec: 1_000 },
    );
    // Every first attempt gets a 503 and waits on the 5-second tier.
    await waitUntil(
      'every message failed once and released for its tier',
      async () =>
        (await messages(fixture, runId)).filter((m) => m.state === 'PENDING' && m.attempts === 1).length ===
        300,
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    await fixture.simulator.patchCredential(credentialId, { error5xxRate: 0 });
    await waitUntil('every message sent', async () => (await fixture.counters(runId)).sent === 300, {
      timeoutMs: 60_000,
    });

    const rows = await messages(fixture, runId);
    expect(rows.every((m) => m.state === 'SENT' && m.attempts === 2)).toBe(true);
    // The second attempt came from the 5-second tier, never earlier.
    expect(Math.min(...rows.map((m) => Number(m.waited_ms)))).toBeGreaterThanOrEqual(5_000);
    expect(await tierRecords(fixture.namespace, Topics.sendRetry5s.name)).toBeGreaterThanOrEqual(1);
    const stats = await fixture.simulator.stats(credentialId);
    expect(stats).toMatchObject({ accepted: 300, distinctMessages: 300, duplicates: 0, errors5xx: 300 });
  });
});

describe('send retries used up, and one credential in trouble (tiers scaled to 2%)', () => {
  let fixture: SendingFixture;

  beforeAll(async () => {
    fixture = await SendingFixture.start('sender_exhaust');
    await Promise.all(
      ['a', 'b'].map((name) => fixture.startSender(name, { SENDER_RETRY_DELAY_PERCENT: '2' })),
    );
  });

  afterAll(async () => {
    await fixture?.stop();
  });

  it('fails a message whose retries are used up and dead-letters it, while another credential sends at full rate', async () => {
    // Two credentials at once: one whose provider answers 503 to everything, one healthy.
    const bad = await startCampaign(fixture, 'bad', 200, { error5xxRate: 1 });
    const good = await startCampaign(fixture, 'good', 3_000, {});
    await waitUntil(
      'both runs settled',
      async () => {
        const [b, g] = await Promise.all([fixture.counters(bad.runId), fixture.counters(good.runId)]);
        return b.failed === 200 && g.sent === 3_000;
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );

    // Five attempts (the first and one per tier), then FAILED as retries-exhausted with the provider's code.
    const rows = await messages(fixture, bad.runId);
    expect(rows.every((m) => m.state === 'FAILED' && m.attempts === 5)).toBe(true);
    expect(new Set(rows.map((m) => `${m.reason}/${m.error_code}`))).toEqual(
      new Set(['retries-exhausted/TEMPORARY_ERROR']),
    );
    expect(await tierRecords(fixture.namespace, Topics.sendRetry10m.name)).toBeGreaterThanOrEqual(1);
    // Each exhausted message is in a dead letter, with the batch it came from.
    const consumer = testKafka().consumer({ groupId: `dlq-reader-${fixture.namespace}` });
    const lettered = new Set<string>();
    await consumer.connect();
    await consumer.subscribe({
      topic: new KafkaNames(fixture.namespace).topic(Topics.deadLetters.name),
      fromBeginning: true,
    });
    await consumer.run({
      eachMessage: ({ message }) => {
        const letter = JSON.parse(message.value?.toString('utf8') ?? '{}') as {
          errorCode: string;
          value: string;
        };
        if (letter.errorCode === 'RETRIES_EXHAUSTED') {
          for (const item of (JSON.parse(letter.value) as { items: { messageId: string }[] }).items) {
            lettered.add(item.messageId);
          }
        }
        return Promise.resolve();
      },
    });
    try {
      await waitUntil('every exhausted message dead-lettered', () => Promise.resolve(lettered.size === 200), {
        timeoutMs: 30_000,
      });
    } finally {
      await consumer.disconnect();
    }
    expect([...lettered].sort()).toEqual(rows.map((m) => String(m.id)).sort());

    // The 503s cut only the troubled credential's rate; the healthy one was never slowed down.
    expect(
      await sumMetric(
        fixture.senders.map((sender) => sender.managementUrl),
        'ums_rate_limit_rate_changes_total',
        {
          credential: bad.credentialId,
          step: 'decrease',
        },
      ),
    ).toBeGreaterThanOrEqual(1);
    expect(
      await sumMetric(
        fixture.senders.map((sender) => sender.managementUrl),
        'ums_rate_limit_rate_changes_total',
        {
          credential: good.credentialId,
          step: 'decrease',
        },
      ),
    ).toBe(0);
    const goodStats = await fixture.simulator.stats(good.credentialId);
    expect(goodStats).toMatchObject({ accepted: 3_000, duplicates: 0, errors5xx: 0 });
  });
});
