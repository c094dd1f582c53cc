import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AllTopics,
  type KafkaService,
  kafkaAccessOf,
  retryGroupOf,
  ServiceKafkaContracts,
  Topics,
} from '@ums/contracts';
import { ensureTopics } from '@ums/platform';
import { type KafkaBrokerHandle, startKafkaBroker, workspaceRoot } from '@ums/testing';
import {
  AclOperationTypes,
  AclPermissionTypes,
  AclResourceTypes,
  type AclEntry,
  Kafka,
  logLevel,
  ResourcePatternTypes,
} from 'kafkajs';
import { parseAllDocuments } from 'yaml';
import { kafkaUserOf } from './strimzi.renderer';

jest.setTimeout(180_000);

/**
 * The ACLs of k8s/components/strimzi/users.yaml, applied to a broker that enforces them (KRaft
 * StandardAuthorizer, SCRAM-SHA-512 users, nothing allowed without an ACL): each service's user can do
 * what its contract says, with the idempotent producer and consumer groups the platform uses, and no more.
 */
const SERVICES = Object.keys(ServiceKafkaContracts) as KafkaService[];
const PROGRAMS = [...SERVICES, 'create-topics' as const];
const passwordOf = (user: string): string => `${user}-secret`;

interface StrimziAcl {
  readonly resource: { readonly type: 'topic' | 'group' | 'cluster'; readonly name?: string };
  readonly operations: readonly string[];
}

const OPERATIONS: Record<string, AclOperationTypes> = {
  Read: AclOperationTypes.READ,
  Write: AclOperationTypes.WRITE,
  Create: AclOperationTypes.CREATE,
  Describe: AclOperationTypes.DESCRIBE,
  DescribeConfigs: AclOperationTypes.DESCRIBE_CONFIGS,
  IdempotentWrite: AclOperationTypes.IDEMPOTENT_WRITE,
};
const RESOURCES = {
  topic: AclResourceTypes.TOPIC,
  group: AclResourceTypes.GROUP,
  cluster: AclResourceTypes.CLUSTER,
};

/** The committed KafkaUsers' ACLs as kafkajs entries. */
function committedAcls(): AclEntry[] {
  const text = readFileSync(join(workspaceRoot(), 'k8s', 'components', 'strimzi', 'users.yaml'), 'utf8');
  return parseAllDocuments(text)
    .map((d) => d.toJS() as { metadata: { name: string }; spec: { authorization: { acls: StrimziAcl[] } } })
    .filter((user) => user !== null)
    .flatMap((user) =>
      user.spec.authorization.acls.flatMap((acl) =>
        acl.operations.map((operation) => {
          const known = OPERATIONS[operation];
          if (known === undefined) throw new Error(`no mapping for ACL operation ${operation}`);
          return {
            resourceType: RESOURCES[acl.resource.type],
            resourceName: acl.resource.name ?? 'kafka-cluster',
            resourcePatternType: ResourcePatternTypes.LITERAL,
            principal: `User:${user.metadata.name}`,
            host: '*',
            operation: known,
            permissionType: AclPermissionTypes.ALLOW,
          };
        }),
      ),
    );
}

/** The SASL listener's settings: SCRAM users, and the authorizer that enforces the users' ACLs. */
const ACL_PROPERTIES = [
  'sasl.enabled.mechanisms=SCRAM-SHA-512',
  'listener.name.client.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;',
  'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
  // The loopback-only PLAINTEXT (inter-broker, readiness) and controller listeners are ANONYMOUS.
  'super.users=User:ANONYMOUS;User:admin',
  'allow.everyone.if.no.acl.found=false',
  '',
].join('\n');

function client(brokers: string, user: string, retries = 5): Kafka {
  return new Kafka({
    clientId: user,
    brokers: [brokers],
    sasl: { mechanism: 'scram-sha-512', username: user, password: passwordOf(user) },
    logLevel: logLevel.NOTHING,
    retry: { retries, initialRetryTime: 200, maxRetryTime: 2_000 },
  });
}

/**
 * Resolves once a consumer of this group has joined it on the topics, and leaves the group. A consumer
 * without retries fails at the first refusal, NOT_COORDINATOR included.
 */
async function joinGroup(
  kafka: Kafka,
  groupId: string,
  topics: readonly string[],
  retries = 0,
): Promise<void> {
  const consumer = kafka.consumer({
    groupId,
    retry: { retries, initialRetryTime: 200, maxRetryTime: 2_000 },
  });
  await consumer.connect();
  try {
    const joined = new Promise<void>((resolve, reject) => {
      consumer.on(consumer.events.GROUP_JOIN, () => resolve());
      consumer.on(consumer.events.CRASH, (event) => reject(event.payload.error));
    });
    await consumer.subscribe({ topics: [...topics], fromBeginning: true });
    await consumer.run({ eachMessage: async () => undefined });
    await joined;
  } finally {
    await consumer.disconnect();
  }
}

/** Resolves with the first message a consumer of the group reads from the topics; rejects when it crashes. */
async function readOne(kafka: Kafka, groupId: string, topics: readonly string[]): Promise<void> {
  const consumer = kafka.consumer({ groupId, retry: { retries: 0 } });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [...topics], fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      consumer.on(consumer.events.CRASH, (event) => reject(event.payload.error));
      consumer.run({ eachMessage: async () => resolve() }).catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
}

async function publish(kafka: Kafka, topic: string): Promise<void> {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    await producer.send({ topic, acks: -1, messages: [{ key: 'k', value: '{}' }] });
  } finally {
    await producer.disconnect();
  }
}

describe('KafkaUser ACLs on a broker that enforces them', () => {
  let dir: string;
  let broker: KafkaBrokerHandle | undefined;
  let brokers: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ums-acl-kafka-'));
    const users = ['admin', ...PROGRAMS.map(kafkaUserOf)];
    broker = await startKafkaBroker({
      dataDir: dir,
      heapMb: 384,
      extraListeners: [{ name: 'CLIENT', protocol: 'SASL_PLAINTEXT' }],
      extraProperties: ACL_PROPERTIES,
      formatArgs: users.flatMap((u) => [
        '--add-scram',
        `SCRAM-SHA-512=[name=${u},password=${passwordOf(u)}]`,
      ]),
    });
    brokers = broker.listeners['CLIENT'] as string;
    const admin = client(brokers, 'admin').admin();
    await admin.connect();
    try {
      await admin.createAcls({ acl: committedAcls() });
    } finally {
      await admin.disconnect();
    }
    await ensureTopics(client(brokers, 'admin'), AllTopics, 1);
    // The first group creates __consumer_offsets; until its partitions are loaded, FindCoordinator
    // finds none and JoinGroup answers NOT_COORDINATOR, so this consumer retries both.
    await joinGroup(client(brokers, 'admin', 30), 'warm-up', [Topics.deadLetters.name], 30);
  });

  afterAll(async () => {
    await broker?.stop();
    if (dir !== undefined && process.env['KEEP_ACL_BROKER_DIR'] === undefined)
      rmSync(dir, { recursive: true, force: true });
  });

  it.each(SERVICES.filter((s) => kafkaAccessOf(s).writes.length > 0))(
    'lets %s publish idempotently to each topic it writes',
    async (service) => {
      const kafka = client(brokers, kafkaUserOf(service));
      for (const topic of kafkaAccessOf(service).writes) await publish(kafka, topic);
    },
  );

  it.each(SERVICES.filter((s) => kafkaAccessOf(s).groups.length > 0))(
    'lets %s read in each of its groups from the topics the group reads',
    async (service) => {
      const admin = client(brokers, 'admin');
      for (const topic of kafkaAccessOf(service).reads) await publish(admin, topic);
      const kafka = client(brokers, kafkaUserOf(service));
      for (const consumer of ServiceKafkaContracts[service].consumers) {
        await readOne(kafka, consumer.groupId, [consumer.topic.name]);
        if (consumer.retryTiers !== undefined && consumer.consumesRetryTiers !== false)
          await readOne(
            kafka,
            retryGroupOf(consumer.groupId),
            consumer.retryTiers.map((t) => t.name),
          );
      }
    },
  );

  it('refuses a write, a read and a group outside the contract', async () => {
    const ingest = client(brokers, kafkaUserOf('webhook-ingest'));
    await expect(publish(ingest, Topics.messageStatus.name)).rejects.toThrow(/authoriz/i);
    const expander = client(brokers, kafkaUserOf('batch-expander'));
    // It writes batches (Write, Describe) but may not read them.
    await expect(readOne(expander, 'batch-expander', [Topics.batches.name])).rejects.toThrow(/authoriz/i);
    // kafkajs reports a refused FindCoordinator (GROUP_AUTHORIZATION_FAILED) as not finding the
    // coordinator; the same user finds its own group's coordinator at once.
    await joinGroup(expander, 'batch-expander', [Topics.runRequested.name]);
    await expect(joinGroup(expander, 'notification-sender', [Topics.runRequested.name])).rejects.toThrow(
      /authoriz|find group coordinator/i,
    );
  });

  it('lets the topic job create a missing topic and check the existing ones', async () => {
    const admin = client(brokers, 'admin').admin();
    await admin.connect();
    try {
      await admin.deleteTopics({ topics: [Topics.subscriberAlerts.name] });
      while ((await admin.listTopics()).includes(Topics.subscriberAlerts.name))
        await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await admin.disconnect();
    }
    const result = await ensureTopics(client(brokers, kafkaUserOf('create-topics')), AllTopics, 1);
    expect(result.created).toEqual([Topics.subscriberAlerts.name]);
    expect(result.mismatches).toEqual([]);
  });
});
