import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { AllTopics, Topics } from '@ums/contracts';
import { ensureTopics, KafkaNames } from '@ums/platform';
import { compiledEntry, testBrokers, testKafka, waitUntil } from '@ums/testing';
import { ConfigResourceTypes } from 'kafkajs';

jest.setTimeout(120_000);

/** The built create-topics job against the test broker, in a namespace of its own. */
describe('create-topics', () => {
  const namespace = `ct-${randomBytes(3).toString('hex')}`;
  const names = new KafkaNames(namespace);
  const physical = (name: string): string => names.topic(name);

  function run(...args: string[]): { status: number | null; stdout: string } {
    const entry = compiledEntry('apps/ums-admin/src/main.ts');
    const result = spawnSync(entry.command, [...entry.args, 'create-topics', ...args], {
      env: {
        ...entry.env,
        KAFKA_BROKERS: testBrokers().join(','),
        KAFKA_NAMESPACE: namespace,
      },
      encoding: 'utf8',
    });
    return { status: result.status, stdout: result.stdout };
  }

  it('creates the topics, then fails on a weaker existing topic unless --report-only', async () => {
    const first = run('--replication', '1');
    expect(first).toEqual({ status: 0, stdout: `${AllTopics.length} topic(s) created, 0 already present\n` });

    const admin = testKafka('create-topics-e2e').admin();
    await admin.connect();
    try {
      // min.insync.replicas above the single replica refuses acks=all writes; more partitions only warn.
      await admin.alterConfigs({
        validateOnly: false,
        resources: [
          {
            type: ConfigResourceTypes.TOPIC,
            name: physical(Topics.subscriberAlerts.name),
            configEntries: [{ name: 'min.insync.replicas', value: '2' }],
          },
        ],
      });
      await admin.createPartitions({
        topicPartitions: [{ topic: physical(Topics.deadLetters.name), count: 13 }],
      });
    } finally {
      await admin.disconnect();
    }

    // Both changes reach the broker's metadata a moment after the calls return.
    await waitUntil('the changes to show', async () => {
      const result = await ensureTopics(
        testKafka(),
        AllTopics.filter(
          (t) => t.name === Topics.subscriberAlerts.name || t.name === Topics.deadLetters.name,
        ),
        1,
        names,
      );
      return result.mismatches.length === 2;
    });
    const second = run('--replication', '1');
    expect(second.status).toBe(2);
    const lines = second.stdout.trim().split('\n');
    expect(lines.slice(0, 3)).toEqual([
      `0 topic(s) created, ${AllTopics.length} already present`,
      `error: ${physical(Topics.subscriberAlerts.name)} has min.insync.replicas=2, expected 1 (above the replica count: acks=all writes are refused)`,
      `warning: ${physical(Topics.deadLetters.name)} has partitions=13, expected 12`,
    ]);
    expect(lines[3]).toMatch(/^1 setting\(s\) of existing topics are below/);

    expect(run('--replication', '1', '--report-only').status).toBe(0);
  });
});
