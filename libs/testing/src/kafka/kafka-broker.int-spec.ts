import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { startKafkaBroker } from './kafka-broker';

// The launcher itself: a second broker of our own, so stopping and restarting it cannot disturb other tests.
describe('startKafkaBroker', () => {
  it('starts a KRaft broker that keeps its data across a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ums-broker-'));
    const broker = await startKafkaBroker({ dataDir, heapMb: 384 });
    try {
      const kafka = new Kafka({
        clientId: 'broker-test',
        brokers: [broker.brokers],
        logLevel: logLevel.NOTHING,
      });
      const admin = kafka.admin();
      await admin.connect();
      await admin.createTopics({
        topics: [{ topic: 'ums.test.launcher.v1', numPartitions: 2 }],
        waitForLeaders: true,
      });
      const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      await producer.send({
        topic: 'ums.test.launcher.v1',
        acks: -1,
        messages: [{ key: 'k', value: 'kept' }],
      });
      await producer.disconnect();
      await admin.disconnect();

      await broker.restart();

      const admin2 = kafka.admin();
      await admin2.connect();
      const offsets = await admin2.fetchTopicOffsets('ums.test.launcher.v1');
      await admin2.disconnect();
      expect(offsets.reduce((sum, p) => sum + Number(p.high), 0)).toBe(1);
    } finally {
      await broker.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
