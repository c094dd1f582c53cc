import { join } from 'node:path';
import { serviceMysqlEnv } from '../pipeline/service-env';
import { testLogDir } from './test-log-dir';
import { compiledEntry } from './compiled-entry';
import { freePort } from '../net/free-port';
import { ManagedProcess } from './managed-process';
import { waitUntil } from './wait-until';

export interface ServiceProcessOptions {
  /** The app folder name, e.g. `campaign-scheduler`. */
  readonly app: string;
  /**
   * Environment on top of the test process's own (MYSQL_DATABASE, KAFKA_BROKERS, ...). MYSQL_USER and
   * MYSQL_PASSWORD default to the app's own account (serviceMysqlEnv).
   */
  readonly env: Readonly<Record<string, string>>;
  /** Distinguishes replicas of one app in log file names. */
  readonly instance?: string;
  /** The API port (a free one when omitted). */
  readonly port?: number;
  /** The management port: health and metrics (a free one when omitted). */
  readonly managementPort?: number;
  readonly readyTimeoutMs?: number;
  /** Node flags before the entry (e.g. `--cpu-prof`, which NODE_OPTIONS refuses). */
  readonly nodeArgs?: readonly string[];
}

export interface ServiceProcess {
  readonly process: ManagedProcess;
  /** The API listener. */
  readonly url: string;
  /** The management listener: `/health/live`, `/health/ready`, `/metrics`. */
  readonly managementUrl: string;
  readonly logFile: string;
  /** Starts it again after kill() or stop(), on the same ports, and waits until it is ready. */
  restart(): Promise<void>;
}

/**
 * Runs one service from its build in dist/, as production does, and waits until `/health/ready`
 * answers 200 on its management port. Logs go to the run's test log directory for post-mortems.
 */
export async function startServiceProcess(options: ServiceProcessOptions): Promise<ServiceProcess> {
  const port = options.port ?? (await freePort());
  // The OS may hand the same just-released port out twice: the two listeners must differ.
  let managementPort = options.managementPort ?? (await freePort());
  while (options.managementPort === undefined && managementPort === port) managementPort = await freePort();
  const entry = compiledEntry(`apps/${options.app}/src/main.ts`, options.nodeArgs);
  const label = options.instance === undefined ? options.app : `${options.app}-${options.instance}`;
  const logFile = join(testLogDir(), `${label}-${port}.log`);
  const proc = new ManagedProcess({
    name: label,
    command: entry.command,
    args: entry.args,
    env: {
      LOG_LEVEL: 'info',
      ...entry.env,
      // The service's own least-privilege MySQL account, unless the test names another.
      ...serviceMysqlEnv(options.app),
      ...options.env,
      HTTP_HOST: '127.0.0.1',
      HTTP_PORT: String(port),
      MANAGEMENT_HOST: '127.0.0.1',
      MANAGEMENT_PORT: String(managementPort),
    },
    logFile,
  });
  const url = `http://127.0.0.1:${port}`;
  const managementUrl = `http://127.0.0.1:${managementPort}`;
  const ready = async (): Promise<void> => {
    proc.start();
    await waitUntil(
      `${label} ready`,
      async () => {
        try {
          return (await fetch(`${managementUrl}/health/ready`)).status === 200;
        } catch {
          return false;
        }
      },
      { timeoutMs: options.readyTimeoutMs ?? 60_000, intervalMs: 100, abortIf: proc.exitedUnexpectedly },
    );
  };
  await ready();
  return { process: proc, url, managementUrl, logFile, restart: ready };
}
