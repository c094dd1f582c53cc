import { join } from 'node:path';
import { mysqlUserOfService } from '@ums/contracts';
import { newOperatorKey } from '@ums/platform';
import {
  compiledEntry,
  freePort,
  type KafkaBrokerHandle,
  type KafkaClusterHandle,
  ManagedProcess,
  type MysqlAccounts,
  runningDetachedBroker,
  runningDetachedCluster,
  startKafkaBroker,
  startKafkaCluster,
  waitUntil,
  workspaceRoot,
} from '@ums/testing';
import type { PipelineUrls } from './pipeline-campaign';
import { crashed, RestartBackoff, restartLine } from './restart-policy';

export const SERVICE_NAMES = [
  'campaign-scheduler',
  'batch-expander',
  'notification-sender',
  'webhook-ingest',
  'webhook-dispatcher',
  'provider-simulator',
  // Last: its environment names the scheduler's and the dispatcher's URLs, known once they started.
  'operator-console',
] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** The services with an authenticated API: they get the stack's operator key as AUTH_OPERATOR_KEY. */
const KEYED_SERVICES: ReadonlySet<ServiceName> = new Set(['campaign-scheduler', 'webhook-dispatcher']);

export interface LocalStackOptions {
  /** Use this cluster instead of starting a broker (KAFKA_BROKERS when set). */
  readonly kafkaBrokers?: string;
  /** Where a broker started here keeps its data. */
  readonly kafkaDataDir: string;
  /** Port for a broker started here (a free one when omitted). */
  readonly kafkaPort?: number;
  /**
   * Kafka nodes to start here: 1 (default), or 3 for a KRaft cluster on loopback (free ports; topics
   * replicated three times with min.insync.replicas 2), as `--brokers 3` asks.
   */
  readonly kafkaNodes?: 1 | 3;
  /** Kafka and the services outlive this process (`--keep`); stop them with `npm run infra:down`. */
  readonly keepRunning?: boolean;
  readonly mysqlDatabase: string;
  /**
   * The MySQL login of each service and of the migration job (libs/contracts service-grants.ts);
   * without it every process uses the environment's MYSQL_USER and MYSQL_PASSWORD.
   */
  readonly mysqlAccounts?: MysqlAccounts;
  readonly services?: readonly ServiceName[];
  /**
   * Fixed API ports (3000-3006 for the demo), and management ports (health, metrics) MANAGEMENT_PORT_OFFSET
   * above them (3100-3106); free ports are chosen when omitted.
   */
  readonly basePort?: number;
  readonly logDir: string;
  /** Extra environment for every process (MYSQL_HOST, REDIS_URL, LOG_LEVEL, ...). */
  readonly env?: Readonly<Record<string, string>>;
  /** Extra environment for one service's processes, on top of `env`. */
  readonly serviceEnv?: Partial<Record<ServiceName, Readonly<Record<string, string>>>>;
  /** Processes per service (default 1); replicas after the first get free ports. */
  readonly replicas?: Partial<Record<ServiceName, number>>;
  /** Node options for the service processes only (e.g. `--cpu-prof`, which NODE_OPTIONS refuses). */
  readonly nodeArgs?: readonly string[];
  readonly onStep?: (step: string) => void;
}

export interface RunningService {
  readonly name: ServiceName;
  /** `notification-sender`, then `notification-sender-2`, ... for replicas. */
  readonly label: string;
  /** The API listener. */
  readonly url: string;
  /** The management listener: `/health/live`, `/health/ready`, `/metrics`. */
  readonly managementUrl: string;
  readonly process: ManagedProcess;
}

export interface LocalStack {
  readonly brokers: string;
  /**
   * The operator key of this stack, made for this run and given to the scheduler and the
   * dispatcher as AUTH_OPERATOR_KEY; it creates the tenants' keys. Never print it.
   */
  readonly operatorKey: string;
  readonly services: readonly RunningService[];
  readonly broker: KafkaBrokerHandle | undefined;
  /** How often each service (by label) has been restarted after it died; only services restarted. */
  readonly restarts: Readonly<Record<string, number>>;
  /** The three-node cluster this stack started (kafkaNodes 3), if any. */
  readonly cluster: KafkaClusterHandle | undefined;
  /**
   * SIGTERM every service and wait for each to drain, then stop the broker (or cluster) if this stack
   * started it attached: services before Kafka, so that they commit and flush instead of timing out.
   */
  stop(): Promise<Record<string, number | null>>;
}

/** Where the pipeline's HTTP APIs answer in a running stack (its first replica of each service). */
export function stackUrls(stack: Pick<LocalStack, 'services'>): PipelineUrls {
  const url = (name: ServiceName): string => {
    const service = stack.services.find((candidate) => candidate.name === name);
    if (service === undefined) throw new Error(`${name} is not running`);
    return service.url;
  };
  return {
    scheduler: url('campaign-scheduler'),
    simulator: url('provider-simulator'),
    ingest: url('webhook-ingest'),
    dispatcher: url('webhook-dispatcher'),
  };
}

/**
 * Starts Kafka (or uses a given cluster), migrates, creates topics and starts the services. A
 * service that dies (a non-zero exit or a signal nobody sent) is restarted, as Kubernetes would,
 * with a bounded backoff (restart-policy.ts), and onStep says so: by this process while it runs,
 * and, for a kept stack (`keepRunning`), by a service-keeper process per service that outlives it
 * (its lines go to the service's log).
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const names = options.services ?? SERVICE_NAMES;
  checkConsoleApis(names);
  const step = options.onStep ?? (() => undefined);
  let broker: KafkaBrokerHandle | undefined;
  let cluster: KafkaClusterHandle | undefined;
  const replication = options.kafkaNodes ?? 1;
  const runningDetached = replication === 3 ? runningDetachedCluster : runningDetachedBroker;
  let brokers =
    options.kafkaBrokers ??
    (options.keepRunning === true ? runningDetached(options.kafkaDataDir) : undefined);
  if (brokers === undefined && replication === 3) {
    step('starting Kafka (three-node KRaft cluster)');
    cluster = await startKafkaCluster({
      dataDir: options.kafkaDataDir,
      detached: options.keepRunning,
      heapMb: 512,
    });
    brokers = cluster.brokers;
  } else if (brokers === undefined) {
    step('starting Kafka (single-node KRaft)');
    broker = await startKafkaBroker({
      dataDir: options.kafkaDataDir,
      port: options.kafkaPort,
      detached: options.keepRunning,
      heapMb: 768,
    });
    brokers = broker.brokers;
  }
  const env = {
    LOG_LEVEL: 'info',
    // DEV-ONLY public key (decodes to "DEV ONLY - not a secret - public"); real deployments set their own.
    SECRETS_KEYS: 'dev:REVWIE9OTFkgLSBub3QgYSBzZWNyZXQgLSBwdWJsaWM=',
    // The provider simulator stands in for the providers here, on whatever loopback port it got.
    PROVIDER_SIMULATOR_ENABLED: 'true',
    PROVIDER_ENDPOINTS_SIMULATOR: 'http://127.0.0.1:3005,http://127.0.0.1:*',
    ...options.env,
    KAFKA_BROKERS: brokers,
    MYSQL_DATABASE: options.mysqlDatabase,
  };

  step('migrating the schema');
  await runAdminJob('migrate', ['up'], { ...env, ...mysqlLogin(options, 'migrate') }, options.logDir);
  step('creating topics from the contracts');
  await runAdminJob('create-topics', ['--replication', String(replication)], env, options.logDir);

  // A fresh one per run (umso_ and 32 random bytes in base64url): no fixed key to leak or reuse.
  const operatorKey = newOperatorKey();
  const services: RunningService[] = [];
  for (const [index, name] of names.entries()) {
    const replicas = options.replicas?.[name] ?? 1;
    for (let replica = 1; replica <= replicas; replica++) {
      const [port, managementPort] = await servicePorts(options.basePort, name, replica);
      const label = replica === 1 ? name : `${name}-${replica}`;
      const entry = compiledEntry(`apps/${name}/src/main.ts`, options.nodeArgs);
      const command = keptCommand(label, entry, options.keepRunning === true);
      const proc = new ManagedProcess({
        name: label,
        command: command.command,
        args: command.args,
        env: {
          ...entry.env,
          ...env,
          ...mysqlLogin(options, name),
          ...options.serviceEnv?.[name],
          ...(KEYED_SERVICES.has(name) ? { AUTH_OPERATOR_KEY: operatorKey } : {}),
          ...(name === 'operator-console' ? consoleEnv(services) : {}),
          HTTP_PORT: String(port),
          HTTP_HOST: '127.0.0.1',
          MANAGEMENT_PORT: String(managementPort),
          MANAGEMENT_HOST: '127.0.0.1',
        },
        logFile: join(options.logDir, `${label}.log`),
        detached: options.keepRunning,
      }).start();
      services.push({
        name,
        label,
        url: `http://127.0.0.1:${port}`,
        managementUrl: `http://127.0.0.1:${managementPort}`,
        process: proc,
      });
      step(`started ${label} (${index + 1}/${names.length}) on port ${port}, management ${managementPort}`);
    }
  }
  const supervision = { stopping: false, restarts: {} as Record<string, number> };
  // A kept stack's services are restarted by their keepers; this process restarts the others.
  if (options.keepRunning !== true) for (const service of services) supervise(service, supervision, step);
  const stack: LocalStack = {
    brokers,
    operatorKey,
    services,
    broker,
    restarts: supervision.restarts,
    cluster,
    stop: async () => {
      supervision.stopping = true;
      const codes = await Promise.all(services.map(async (s) => [s.label, await s.process.stop()] as const));
      if (broker !== undefined && options.keepRunning !== true) await broker.stop();
      if (cluster !== undefined && options.keepRunning !== true) await cluster.stop();
      return Object.fromEntries(codes);
    },
  };
  try {
    for (const service of services) {
      await waitUntil(
        `${service.label} ready`,
        async () => (await fetch(`${service.managementUrl}/health/ready`)).status === 200,
        {
          timeoutMs: 60_000,
          intervalMs: 250,
          abortIf: service.process.exitedUnexpectedly,
        },
      );
      step(`${service.label} ready`);
    }
  } catch (error: unknown) {
    await stack.stop();
    throw error;
  }
  return stack;
}

/** The APIs the operator console passes its calls on to. */
const CONSOLE_APIS = ['campaign-scheduler', 'webhook-dispatcher'] as const;

/** The console's APIs must be started before it, to know their URLs (SERVICE_NAMES lists it last). */
function checkConsoleApis(names: readonly ServiceName[]): void {
  const at = names.indexOf('operator-console');
  const missing = at < 0 ? [] : CONSOLE_APIS.filter((api) => !names.slice(0, at).includes(api));
  if (missing.length > 0)
    throw new Error(`operator-console needs ${missing.join(' and ')} started before it`);
}

/** The operator console's environment: the URLs of its APIs' first replicas (checkConsoleApis). */
function consoleEnv(started: readonly RunningService[]): Record<string, string> {
  const url = (name: ServiceName): string => started.find((candidate) => candidate.name === name)?.url ?? '';
  return {
    CONSOLE_SCHEDULER_URL: url('campaign-scheduler'),
    CONSOLE_DISPATCHER_URL: url('webhook-dispatcher'),
  };
}

/** MYSQL_USER and MYSQL_PASSWORD of a service's (or `migrate`'s) own account, if the stack has accounts. */
function mysqlLogin(options: LocalStackOptions, service: string): Record<string, string> {
  const user = mysqlUserOfService(service);
  const login = user === undefined ? undefined : options.mysqlAccounts?.[user];
  return login === undefined ? {} : { MYSQL_USER: login.user, MYSQL_PASSWORD: login.password };
}

/** Restarts `service` whenever it dies on its own, until the stack stops; onStep says so each time. */
function supervise(
  service: RunningService,
  supervision: { stopping: boolean; restarts: Record<string, number> },
  step: (line: string) => void,
): void {
  const backoff = new RestartBackoff();
  const watch = (startedAt: number): void => {
    void service.process.waitForExit().then(async () => {
      const exit = service.process.exitStatus;
      if (supervision.stopping || service.process.exitWasExpected || exit === undefined || !crashed(exit)) {
        return;
      }
      const total = (supervision.restarts[service.label] ?? 0) + 1;
      supervision.restarts[service.label] = total;
      const next = backoff.next(Date.now() - startedAt);
      step(restartLine(service.label, exit, { ...next, total }));
      await new Promise((resolve) => setTimeout(resolve, next.delayMs).unref());
      if (supervision.stopping || service.process.running) return;
      service.process.start();
      watch(Date.now());
    });
  };
  watch(Date.now());
}

/** The command of one service: itself, or (kept stack) under a service-keeper that restarts it. */
function keptCommand(
  label: string,
  entry: { command: string; args: string[] },
  keep: boolean,
): { command: string; args: string[] } {
  if (!keep) return entry;
  const keeper = compiledEntry('tools/stack/service-keeper.ts');
  return { command: keeper.command, args: [...keeper.args, label, entry.command, ...entry.args] };
}

/** How far above a service's fixed API port its management port is (basePort). */
export const MANAGEMENT_PORT_OFFSET = 100;

/** The API and management ports of one process: fixed from basePort for first replicas, else free ones. */
async function servicePorts(
  basePort: number | undefined,
  name: ServiceName,
  replica: number,
): Promise<[number, number]> {
  if (basePort !== undefined && replica === 1) {
    const port = basePort + SERVICE_NAMES.indexOf(name);
    return [port, port + MANAGEMENT_PORT_OFFSET];
  }
  const port = await freePort();
  let managementPort = await freePort();
  // The OS may hand the same just-released port out twice: the two listeners must differ.
  while (managementPort === port) managementPort = await freePort();
  return [port, managementPort];
}

/** One command of apps/ums-admin (the deployment's jobs), its output in `<logDir>/<name>.log`. */
async function runAdminJob(
  name: 'migrate' | 'create-topics',
  args: string[],
  env: Record<string, string>,
  logDir: string,
): Promise<void> {
  const { command, args: baseArgs } = compiledEntry('apps/ums-admin/src/main.ts');
  const job = new ManagedProcess({
    name,
    command,
    args: [...baseArgs, name, ...args],
    env,
    logFile: join(logDir, `${name}.log`),
  }).start();
  const code = await job.waitForExit();
  if (code !== 0) throw new Error(`${name} exited with ${String(code)}; see ${join(logDir, `${name}.log`)}`);
}

export function defaultLogDir(label: string): string {
  return join(workspaceRoot(), 'tmp', label);
}
