import {
  AllTopics,
  type KafkaService,
  kafkaAccessOf,
  ServiceKafkaContracts,
  type TopicDefinition,
} from '@ums/contracts';
import { expectedMinInsyncReplicas } from '@ums/platform';
import { stringify } from 'yaml';

/** The Strimzi Kafka cluster (its `metadata.name`) the resources belong to; overlays patch the label. */
export const STRIMZI_CLUSTER = 'ums-kafka';
/** Strimzi's TLS listener of that cluster with SCRAM-SHA-512 authentication (k8s/components/strimzi). */
export const STRIMZI_BOOTSTRAP = `${STRIMZI_CLUSTER}-kafka-bootstrap:9093`;
/** The Secret Strimzi's cluster operator keeps the cluster CA certificate in (key ca.crt). */
export const STRIMZI_CLUSTER_CA_SECRET = `${STRIMZI_CLUSTER}-cluster-ca-cert`;
/** Replication of the topics: a Strimzi cluster in production has three brokers or more. */
export const STRIMZI_REPLICAS = 3;
/** What create-topics expects at that replication (2). */
export const STRIMZI_MIN_INSYNC_REPLICAS = expectedMinInsyncReplicas(STRIMZI_REPLICAS);
/** Where each pod mounts the cluster CA; KAFKA_SSL_CA_FILE points at the file. */
export const KAFKA_CA_DIR = '/etc/ums/kafka-ca';

/**
 * The Kafka user of a service or of the topic job: the KafkaUser's name, in whose Secret Strimzi's user
 * operator puts the password, and the name of the Secret the managed-cluster overlays expect.
 */
export function kafkaUserOf(program: KafkaService | 'create-topics'): string {
  return `ums-kafka-${program}`;
}

interface Acl {
  readonly resource: { readonly type: 'topic' | 'group' | 'cluster'; name?: string; patternType?: 'literal' };
  readonly operations: readonly string[];
}

const GENERATED =
  '# GENERATED from libs/contracts by `npm run k8s:generate` (tools/strimzi/strimzi.renderer.ts): do not\n' +
  '# edit; a test fails when this file is stale.\n';

function document(object: object): string {
  return stringify(object, { lineWidth: 0 });
}

function kafkaTopic(topic: TopicDefinition<object>): object {
  return {
    apiVersion: 'kafka.strimzi.io/v1beta2',
    kind: 'KafkaTopic',
    metadata: { name: topic.name, labels: { 'strimzi.io/cluster': STRIMZI_CLUSTER } },
    spec: {
      topicName: topic.name,
      partitions: topic.partitions,
      replicas: STRIMZI_REPLICAS,
      config: {
        'retention.ms': topic.retentionMs,
        'min.insync.replicas': STRIMZI_MIN_INSYNC_REPLICAS,
      },
    },
  };
}

/** Topic ACLs: Read where it consumes, Write where it publishes, Describe on both. */
function serviceAcls(service: KafkaService): Acl[] {
  const access = kafkaAccessOf(service);
  const acls: Acl[] = AllTopics.map((t) => t.name)
    .filter((name) => access.reads.includes(name) || access.writes.includes(name))
    .map((name) => ({
      resource: { type: 'topic', name, patternType: 'literal' },
      operations: [
        ...(access.reads.includes(name) ? ['Read'] : []),
        ...(access.writes.includes(name) ? ['Write'] : []),
        'Describe',
      ],
    }));
  for (const group of access.groups)
    acls.push({ resource: { type: 'group', name: group, patternType: 'literal' }, operations: ['Read'] });
  // The idempotent producer's InitProducerId: brokers before Kafka 3.0 ask for it on the cluster.
  if (access.writes.length > 0) acls.push({ resource: { type: 'cluster' }, operations: ['IdempotentWrite'] });
  return acls;
}

function kafkaUser(name: string, component: string, acls: readonly Acl[]): object {
  return {
    apiVersion: 'kafka.strimzi.io/v1beta2',
    kind: 'KafkaUser',
    metadata: {
      name,
      labels: { 'strimzi.io/cluster': STRIMZI_CLUSTER, 'app.kubernetes.io/name': component },
    },
    spec: { authentication: { type: 'scram-sha-512' }, authorization: { type: 'simple', acls } },
  };
}

/** The topic job creates what is missing and reads each topic's settings to compare them. */
function createTopicsAcls(): Acl[] {
  return AllTopics.map((t) => ({
    resource: { type: 'topic', name: t.name, patternType: 'literal' },
    operations: ['Create', 'Describe', 'DescribeConfigs'],
  }));
}

/** k8s/components/strimzi/topics.yaml: one KafkaTopic per topic of the contracts. */
export function renderStrimziTopics(): string {
  return GENERATED + AllTopics.map((t) => `---\n${document(kafkaTopic(t))}`).join('');
}

/** k8s/components/strimzi/users.yaml: one KafkaUser per service and one for the topic job. */
export function renderStrimziUsers(): string {
  const services = Object.keys(ServiceKafkaContracts) as KafkaService[];
  const users = [
    ...services.map((s) => kafkaUser(kafkaUserOf(s), s, serviceAcls(s))),
    kafkaUser(kafkaUserOf('create-topics'), 'ums-create-topics', createTopicsAcls()),
  ];
  return GENERATED + users.map((u) => `---\n${document(u)}`).join('');
}

/** Settings the overlay or component merges into ums-common beside KAFKA_BROKERS. */
const SECURITY_KEYS = ['KAFKA_SECURITY_PROTOCOL', 'KAFKA_SASL_MECHANISM'];

type EnvSource = { value: string } | { valueFrom: object };

/** JSON patch operations adding env entries (and optionally the CA mount) to a workload's first container. */
function envPatch(env: Record<string, EnvSource>, withCa: boolean): object[] {
  const pod = '/spec/template/spec';
  const container = `${pod}/containers/0`;
  const ops: object[] = Object.entries(env).map(([name, source]) => ({
    op: 'add',
    path: `${container}/env/-`,
    value: { name, ...source },
  }));
  if (!withCa) return ops;
  return [
    ...ops,
    {
      op: 'add',
      path: `${container}/volumeMounts/-`,
      value: { name: 'kafka-ca', mountPath: KAFKA_CA_DIR, readOnly: true },
    },
    {
      op: 'add',
      path: `${pod}/volumes/-`,
      value: {
        name: 'kafka-ca',
        secret: { secretName: STRIMZI_CLUSTER_CA_SECRET, items: [{ key: 'ca.crt', path: 'ca.crt' }] },
      },
    },
  ];
}

/** The Job takes ums-common's Kafka settings one by one; the services take all of ums-common. */
const fromCommonConfig = (...keys: string[]): Record<string, EnvSource> =>
  Object.fromEntries(
    keys.map((key) => [key, { valueFrom: { configMapKeyRef: { name: 'ums-common', key } } }]),
  );

/** A program connecting to Kafka: a service or the topic job. */
type KafkaProgram = KafkaService | 'create-topics';

/** The Deployments of the services and the topic Job, with the Kafka user each connects as. */
function workloads(
  userOf: (program: KafkaProgram) => string,
): { kind: string; name: string; user: string }[] {
  const services = Object.keys(ServiceKafkaContracts) as KafkaService[];
  return [
    ...services.map((s) => ({ kind: 'Deployment', name: s, user: userOf(s) })),
    { kind: 'Job', name: 'ums-create-topics', user: userOf('create-topics') },
  ];
}

/** The topic Job has no volumes of its own: the lists are created before anything is appended. */
const JOB_LISTS = [
  { op: 'add', path: '/spec/template/spec/volumes', value: [] },
  { op: 'add', path: '/spec/template/spec/containers/0/volumeMounts', value: [] },
];

function patchesOf(
  list: readonly { kind: string; name: string; user: string }[],
  build: (user: string, isJob: boolean) => object[],
  jobNeedsLists: boolean,
): object[] {
  return list.map((w) => {
    const isJob = w.kind === 'Job';
    return {
      target: { kind: w.kind, name: w.name },
      patch: stringify([...(isJob && jobNeedsLists ? JOB_LISTS : []), ...build(w.user, isJob)], {
        lineWidth: 0,
      }),
    };
  });
}

/** k8s/components/strimzi/kustomization.yaml. */
export function renderStrimziKustomization(): string {
  const patches = patchesOf(
    workloads(kafkaUserOf),
    (user, isJob) =>
      envPatch(
        {
          KAFKA_SASL_USERNAME: { value: user },
          KAFKA_SASL_PASSWORD: { valueFrom: { secretKeyRef: { name: user, key: 'password' } } },
          ...(isJob ? fromCommonConfig(...SECURITY_KEYS, 'KAFKA_SSL_CA_FILE') : {}),
        },
        true,
      ),
    true,
  );
  const kustomization = {
    apiVersion: 'kustomize.config.k8s.io/v1alpha1',
    kind: 'Component',
    resources: ['topics.yaml', 'users.yaml'],
    configMapGenerator: [
      {
        name: 'ums-common',
        behavior: 'merge',
        literals: [
          `KAFKA_BROKERS=${STRIMZI_BOOTSTRAP}`,
          'KAFKA_SECURITY_PROTOCOL=SASL_SSL',
          'KAFKA_SASL_MECHANISM=scram-sha-512',
          `KAFKA_SSL_CA_FILE=${KAFKA_CA_DIR}/ca.crt`,
        ],
      },
    ],
    patches,
  };
  const header =
    '# Strimzi: KafkaTopic and KafkaUser resources (SCRAM-SHA-512, ACLs per service) for a Kafka cluster\n' +
    `# named ${STRIMZI_CLUSTER} with a TLS listener on 9093 using scram-sha-512 authentication and simple\n` +
    '# authorization; each service and the topic job connect as their own user over SASL_SSL, trusting\n' +
    `# the cluster CA (Secret ${STRIMZI_CLUSTER_CA_SECRET}). See docs/operations.md, "Secured and managed engines".\n`;
  return GENERATED + header + document(kustomization);
}

/**
 * k8s/components/kafka-sasl-secrets/kustomization.yaml: each service and the topic job read
 * KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD from their own Secret `ums-kafka-<service>` (keys
 * `username`, `password`); the protocol and mechanism are in ums-common, merged by the overlay
 * (k8s/overlays/msk-scram, k8s/overlays/confluent-cloud).
 */
export function renderSaslSecretsKustomization(): string {
  const patches = patchesOf(
    workloads(kafkaUserOf),
    (secret, isJob) =>
      envPatch(
        {
          KAFKA_SASL_USERNAME: { valueFrom: { secretKeyRef: { name: secret, key: 'username' } } },
          KAFKA_SASL_PASSWORD: { valueFrom: { secretKeyRef: { name: secret, key: 'password' } } },
          ...(isJob ? fromCommonConfig(...SECURITY_KEYS) : {}),
        },
        false,
      ),
    false,
  );
  const header =
    '# SASL credentials from Secrets created outside Git: ums-kafka-<service> for each service and\n' +
    '# ums-kafka-create-topics for the topic job, each with the keys username and password. The overlay\n' +
    '# merges KAFKA_SECURITY_PROTOCOL and KAFKA_SASL_MECHANISM into the ConfigMap ums-common.\n';
  return (
    GENERATED +
    header +
    document({ apiVersion: 'kustomize.config.k8s.io/v1alpha1', kind: 'Component', patches })
  );
}

/** Every generated file under k8s/components, by path relative to it. */
export function renderGeneratedComponents(): Record<string, string> {
  return {
    'strimzi/kustomization.yaml': renderStrimziKustomization(),
    'strimzi/topics.yaml': renderStrimziTopics(),
    'strimzi/users.yaml': renderStrimziUsers(),
    'kafka-sasl-secrets/kustomization.yaml': renderSaslSecretsKustomization(),
  };
}
