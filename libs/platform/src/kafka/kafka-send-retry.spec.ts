import { createRequire } from 'node:module';

/**
 * kafkajs 2.2.4 answered a send whose partition leader moved, mid-call, to a broker that had already
 * answered for other partitions of the call, without ever sending that partition's messages: the
 * records were acknowledged and lost (seen in the three-node cluster test, a leader killed under load).
 * patches/kafkajs+2.2.4.patch (applied by `npm install`'s postinstall) tracks acknowledgements per
 * partition. This drives kafkajs's own send loop with a cluster double to prove the patch is in place.
 */
type Send = (request: {
  acks: number;
  timeout: number;
  compression: number;
  topicMessages: { topic: string; messages: { partition: number; value: string }[] }[];
}) => Promise<{ topicName: string; partition: number }[]>;
type SendFactory = (options: Record<string, unknown>) => Send;
type RetryFactory = (options: Record<string, unknown>) => unknown;

const load = createRequire(__filename);
const createSendMessages = load('kafkajs/src/producer/sendMessages') as SendFactory;
const createRetry = load('kafkajs/src/retry') as RetryFactory;
const { KafkaJSConnectionError } = load('kafkajs/src/errors') as {
  KafkaJSConnectionError: new (message: string) => Error;
};

interface TopicData {
  readonly topic: string;
  readonly partitions: { partition: number; messages: { value: string }[] }[];
}

/** A broker that records what it was sent, and fails when told to. */
function broker(nodeId: number, fail: () => boolean, sent: Map<number, string[]>) {
  return {
    nodeId,
    produce: async ({ topicData }: { topicData: TopicData[] }) => {
      if (fail()) throw new KafkaJSConnectionError(`broker ${nodeId} went away`);
      const got = sent.get(nodeId) ?? [];
      for (const t of topicData) for (const p of t.partitions) got.push(...p.messages.map((m) => m.value));
      sent.set(nodeId, got);
      return {
        topics: topicData.map((t) => ({
          topicName: t.topic,
          partitions: t.partitions.map((p) => ({ partition: p.partition, errorCode: 0, baseOffset: '0' })),
        })),
      };
    },
  };
}

describe('kafkajs send loop (patched): a leader that moves to a broker which already answered', () => {
  it('sends the moved partition to its new leader instead of dropping it', async () => {
    const sent = new Map<number, string[]>();
    const leaders = new Map([
      [0, 1],
      [1, 2],
    ]);
    let brokerOneUp = true;
    const brokers = new Map([
      [1, broker(1, () => !brokerOneUp, sent)],
      [2, broker(2, () => false, sent)],
    ]);
    // Broker 1 dies before it answers; the new metadata makes broker 2 the leader of partition 0.
    brokerOneUp = false;
    const cluster = {
      targetTopics: new Set<string>(),
      addMultipleTargetTopics: async () => undefined,
      refreshMetadataIfNecessary: async () => undefined,
      refreshMetadata: async () => {
        leaders.set(0, 2);
      },
      isConnected: () => true,
      removeBroker: () => undefined,
      findTopicPartitionMetadata: () =>
        [...leaders].map(([partitionId, leader]) => ({ partitionId, leader, partitionErrorCode: 0 })),
      findLeaderForPartitions: (_topic: string, partitions: string[]) => {
        const byLeader: Record<number, number[]> = {};
        for (const p of partitions.map(Number)) (byLeader[leaders.get(p) ?? -1] ??= []).push(p);
        return byLeader;
      },
      findBroker: async ({ nodeId }: { nodeId: string }) => brokers.get(Number(nodeId)),
    };
    const eosManager = {
      isTransactional: () => false,
      getSequence: () => 0,
      updateSequence: () => undefined,
      acquireBrokerLock: async () => undefined,
      releaseBrokerLock: async () => undefined,
      getProducerId: () => -1,
      getProducerEpoch: () => 0,
    };
    const quiet = { debug: () => undefined, error: () => undefined };
    const send = createSendMessages({
      logger: quiet,
      cluster,
      partitioner: ({ message }: { message: { partition: number } }) => message.partition,
      eosManager,
      retrier: createRetry({ retries: 3, initialRetryTime: 1, maxRetryTime: 5 }),
    });

    const responses = await send({
      acks: -1,
      timeout: 1_000,
      compression: 0,
      topicMessages: [
        {
          topic: 't',
          messages: [
            { partition: 0, value: 'p0-a' },
            { partition: 1, value: 'p1-a' },
            { partition: 0, value: 'p0-b' },
          ],
        },
      ],
    });

    expect(sent.get(1)).toBeUndefined();
    expect([...(sent.get(2) ?? [])].sort()).toEqual(['p0-a', 'p0-b', 'p1-a']);
    expect(responses.map((r) => r.partition).sort()).toEqual([0, 1]);
  });
});
