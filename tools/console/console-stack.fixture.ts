import { randomBytes } from 'node:crypto';
import { CampaignApiClient, DispatcherApiClient, type RunView } from '@ums/client';
import { type RunCounters, Scope } from '@ums/contracts';
import {
  createTestDatabase,
  SimulatorClient,
  testBrokers,
  testMysqlAccounts,
  testRedisEnv,
  waitUntil,
} from '@ums/testing';
import { defaultLogDir, type LocalStack, stackUrls, startLocalStack } from '../stack/local-stack';
import { createTenantApiKey, type PipelineUrls } from '../stack/pipeline-campaign';
import { consoleUrlOf } from './console-url';

/** The tenant whose operator signs in to the console in the tests. */
export const CONSOLE_TENANT = 'acme';

/** What the console's signed-in tenant key may do: every page of the console. */
export const CONSOLE_SCOPES: readonly Scope[] = [
  Scope.CampaignsRead,
  Scope.CampaignsWrite,
  Scope.CredentialsRead,
  Scope.CredentialsWrite,
  Scope.MessagesRead,
  Scope.SubscribersRead,
  Scope.SubscribersWrite,
  Scope.DeadLettersAdmin,
  Scope.AuditRead,
];

/**
 * The simulator credential's ceiling in messages/s: low, so that a run of 1,500 recipients lasts over a
 * minute and can be paused and resumed while it sends.
 */
export const CONSOLE_RATE_CEILING = 20;

/**
 * More failures than this within the window tombstone a subscriber: a few failed deliveries take a
 * failing subscriber down instead of the default twenty within a day.
 */
export const CONSOLE_FAILURE_THRESHOLD = 3;

export interface ConsoleStack {
  readonly stack: LocalStack;
  readonly urls: PipelineUrls;
  /** The operator console's own URL: the web pages and `/api/scheduler`, `/api/dispatcher`. */
  readonly consoleUrl: string;
  /** A key of CONSOLE_TENANT with CONSOLE_SCOPES; never printed. */
  readonly tenantKey: string;
  /** A key of CONSOLE_TENANT with credentials:read only: the campaigns pages answer it 403. */
  readonly narrowKey: string;
  /** The simulator credential (callbacks to webhook-ingest, CONSOLE_RATE_CEILING). */
  readonly credential: { readonly id: string; readonly name: string };
  readonly scheduler: CampaignApiClient;
  readonly dispatcher: DispatcherApiClient;
  readonly simulator: SimulatorClient;
  stop(): Promise<void>;
}

/**
 * Every service of the local stack, the operator console among them, on a test database, the test
 * run's broker (a topic namespace of its own) and the test Redis; the dispatcher allows internal
 * (loopback) subscribers and tombstones one after CONSOLE_FAILURE_THRESHOLD failures. Makes the
 * tenant's keys with the stack's operator key, and a simulator credential whose status callbacks
 * (delivered, then read) go to webhook-ingest.
 */
export async function startConsoleStack(label: string): Promise<ConsoleStack> {
  const database = await createTestDatabase('ums_console');
  let stack: LocalStack | undefined;
  try {
    stack = await startLocalStack({
      kafkaBrokers: testBrokers().join(','),
      kafkaDataDir: '',
      mysqlDatabase: database.settings.database,
      mysqlAccounts: testMysqlAccounts(),
      logDir: defaultLogDir(`test-logs/${label}`),
      env: {
        LOG_LEVEL: 'warn',
        KAFKA_NAMESPACE: `console-${randomBytes(4).toString('hex')}`,
        KAFKA_SESSION_TIMEOUT_MS: '6000',
        MYSQL_HOST: database.settings.host,
        MYSQL_PORT: String(database.settings.port),
        ...testRedisEnv(),
      },
      serviceEnv: {
        'webhook-dispatcher': {
          WEBHOOK_INTERNAL_SUBSCRIBERS_ALLOWED: 'true',
          WEBHOOK_FAILURE_THRESHOLD: String(CONSOLE_FAILURE_THRESHOLD),
          WEBHOOK_FAILURE_WINDOW_MS: '600000',
        },
      },
    });
    const running = stack;
    const urls = stackUrls(running);
    const consoleUrl = consoleUrlOf(running);
    const keyOf = (scopes: readonly Scope[]): Promise<string> =>
      createTenantApiKey({
        schedulerUrl: urls.scheduler,
        operatorKey: running.operatorKey,
        tenantId: CONSOLE_TENANT,
        scopes,
      });
    const tenantKey = await keyOf(CONSOLE_SCOPES);
    const narrowKey = await keyOf([Scope.CredentialsRead]);
    const scheduler = new CampaignApiClient({ baseUrl: urls.scheduler, apiKey: tenantKey });
    const dispatcher = new DispatcherApiClient({ baseUrl: urls.dispatcher, apiKey: tenantKey });
    const simulator = new SimulatorClient(urls.simulator);
    const credential = await createSimulatorCredential(urls, scheduler, simulator);
    return {
      stack: running,
      urls,
      consoleUrl,
      tenantKey,
      narrowKey,
      credential,
      scheduler,
      dispatcher,
      simulator,
      stop: async () => {
        try {
          await running.stop();
        } finally {
          await database.drop();
        }
      },
    };
  } catch (error: unknown) {
    await stack?.stop();
    await database.drop();
    throw error;
  }
}

async function createSimulatorCredential(
  urls: PipelineUrls,
  scheduler: CampaignApiClient,
  simulator: SimulatorClient,
): Promise<{ id: string; name: string }> {
  const callbackSecret = `cb_${randomBytes(16).toString('hex')}`;
  const name = 'Simulator (WhatsApp)';
  const credential = await scheduler.credentials.create({
    name,
    provider: 'simulator',
    channel: 'whatsapp',
    config: { baseUrl: urls.simulator },
    callbackSecret,
    rateCeilingPerSec: CONSOLE_RATE_CEILING,
    rateFloorPerSec: 2,
  });
  // The simulator keys its settings by our credential id, which the adapter sends.
  await simulator.putCredential(credential.id, {
    provider: 'simulator',
    latency: { minMs: 5, p50Ms: 20, p99Ms: 60 },
    error5xxRate: 0,
    rate429: 0,
    permanentFailures: [],
    callbackUrl: `${urls.ingest}/v1/callbacks/simulator/${credential.id}`,
    callbackSecret,
    callbacks: {
      enabled: true,
      deliveredRate: 1,
      readRate: 1,
      duplicateRate: 0,
      outOfOrderRate: 0,
      delayMs: 200,
    },
  });
  return { id: credential.id, name };
}

/**
 * A CSV audience (`phone,first_name`) of `count` German mobile numbers from `first` on, and, when
 * `badRow` is given, that text as one more row's phone (it is rejected) after the first good row.
 */
export function audienceCsv(count: number, first: number, badRow?: string): string {
  const lines = Array.from({ length: count }, (_, i) => `+4915${String(100_000_000 + first + i)},R${i + 1}`);
  if (badRow !== undefined) lines.splice(1, 0, `${badRow},Bad`);
  return `phone,first_name\n${lines.join('\n')}\n`;
}

/** A DRAFT WhatsApp campaign on the fixture's credential, with a generated audience uploaded. */
export async function createCampaignWithAudience(
  fixture: Pick<ConsoleStack, 'scheduler' | 'credential'>,
  name: string,
  recipients: { readonly count: number; readonly first: number },
): Promise<string> {
  const campaign = await fixture.scheduler.campaigns.create({
    name,
    channel: 'whatsapp',
    credentialId: fixture.credential.id,
    template: { text: 'Hi {{first_name}}, your order has shipped' },
    schedule: { kind: 'now' },
  });
  const summary = await fixture.scheduler.audience.uploadCsv(campaign.id, {
    fileName: 'audience.csv',
    contentType: 'text/csv',
    content: Buffer.from(audienceCsv(recipients.count, recipients.first)),
  });
  if (summary.rowsAccepted !== recipients.count)
    throw new Error(`${name}: ${summary.rowsAccepted} of ${recipients.count} rows accepted`);
  return campaign.id;
}

/** The campaign's latest run, once it has one in `states` (generous: a loaded machine is slow). */
export async function waitForRun(
  scheduler: CampaignApiClient,
  campaignId: string,
  states: readonly string[],
  timeoutMs = 180_000,
): Promise<RunView> {
  return waitUntil(
    `a run of ${campaignId} in ${states.join(' or ')}`,
    async () => {
      const run = (await scheduler.runs.list(campaignId, { limit: 1 })).items[0];
      return run !== undefined && states.includes(run.state) ? run : undefined;
    },
    { timeoutMs, intervalMs: 500 },
  );
}

/** Messages handed to the provider, whatever status they have reached since. */
export function sendsOf(
  counters: Pick<RunCounters, 'sent' | 'delivered' | 'read' | 'failed' | 'unknown'>,
): number {
  return counters.sent + counters.delivered + counters.read + counters.failed + counters.unknown;
}
