import { Channel, type MessageBatchV1, Provider, SendLane, Topics } from '@ums/contracts';
import {
  type ConsumedMessage,
  type KafkaProducer,
  loadConfig,
  MetricsRegistry,
  type RawRecord,
} from '@ums/platform';
import { seedCampaign, type TestMysqlSettings } from '@ums/testing';
import type { Redis } from 'ioredis';
import { PinoLogger } from 'nestjs-pino';
import type { DataSource } from 'typeorm';
import { ConcurrencyLimit } from '../../providers/concurrency-limit';
import type { CredentialLoader } from '../../providers/credential-loader.service';
import type { OutgoingMessage, SendControl, SendOutcome } from '../../providers/provider-adapter';
import { sendInRequests } from '../../providers/provider-exchange';
import type { ProviderRegistry } from '../../providers/provider-registry.service';
import { ProvidersConfig } from '../../providers/providers.config';
import { credentialFor } from '../../providers/test/provider-fixtures';
import { RateLimitConfig } from '../../rate-limit/rate-limit.config';
import { RateLimitMetrics } from '../../rate-limit/rate-limit.metrics';
import { RateLimitRepository } from '../../rate-limit/rate-limit.repository';
import { RateLimitService } from '../../rate-limit/rate-limit.service';
import { CampaignContentRepository } from '../campaign-content.repository';
import { ContentRenderingService } from '../content-rendering.service';
import type { MessageClaimsRepository } from '../message-claims.repository';
import { ProviderExchangeService } from '../provider-exchange.service';
import { RetryRoutingService } from '../retry-routing.service';
import { RunStatesRepository } from '../run-states.repository';
import { SendBatchService } from '../send-batch.service';
import { SendClaimsService } from '../send-claims.service';
import { SendGrantsService } from '../send-grants.service';
import { SendSettlementService } from '../send-settlement.service';
import { SendSlicesService } from '../send-slices.service';
import { SendingConfig } from '../sending.config';
import { SendingMetrics } from '../sending.metrics';
import type { StatusChange } from '../status-change';
import type { StatusEventsPublisher } from '../status-events.publisher';
import { messageClaimsRepository } from './claims-repository';

/** A provider that counts what reaches it: every request is one message (single-message provider). */
export class CountingProvider {
  /** Message ids in the order their requests reached the provider. */
  readonly sends: string[] = [];
  /** Requests that reached the provider while `refusing` said they must not (an outage window). */
  readonly sendsWhileRefusing: string[] = [];
  refusing = false;
  /** Runs inside each request before it is answered (to make the world change while it is out). */
  onRequest: ((message: OutgoingMessage) => Promise<void>) | undefined;
  private readonly limit: ConcurrencyLimit;

  constructor(
    concurrency: number,
    private readonly requestMs = 0,
  ) {
    this.limit = new ConcurrencyLimit(concurrency);
  }

  /** Stands in for ProviderRegistry.send, queueing on the real per-credential limit and start checks. */
  send(
    _credentialId: string,
    messages: readonly OutgoingMessage[],
    control?: SendControl,
  ): Promise<SendOutcome[]> {
    return sendInRequests(messages, 1, this.limit, control, async ([message]) => {
      if (message === undefined) return [];
      this.sends.push(message.messageId);
      if (this.refusing) this.sendsWhileRefusing.push(message.messageId);
      if (this.requestMs > 0) await new Promise((resolve) => setTimeout(resolve, this.requestMs));
      await this.onRequest?.(message);
      return [
        { messageId: message.messageId, kind: 'accepted', providerMessageId: `p-${message.messageId}` },
      ];
    });
  }

  duplicates(): string[] {
    const seen = new Set<string>();
    return this.sends.filter((id) => (seen.has(id) ? true : (seen.add(id), false)));
  }
}

export interface HarnessOptions {
  readonly ds: DataSource;
  readonly redis: Redis;
  readonly keyPrefix: string;
  readonly credentialId: string;
  readonly provider: CountingProvider;
  readonly sendingEnv?: Record<string, string>;
  readonly providersEnv?: Record<string, string>;
  /** The credential's rate bounds (messages per second); 1,000 and 50 unless given. */
  readonly limits?: { readonly ceiling: number; readonly floor: number };
  /** Replaces the real repositories or the limiter (to make one of their calls fail). */
  readonly claims?: MessageClaimsRepository;
  readonly campaigns?: (real: CampaignContentRepository) => CampaignContentRepository;
  readonly rateLimit?: (real: RateLimitService) => RateLimitService;
}

/**
 * SendBatchService and the providers it sends through, as the module builds them, on a real database
 * and Redis, with a counting provider, a recording Kafka producer and status publisher: what the
 * sender would put on Kafka is kept here.
 */
export class SendBatchHarness {
  readonly statuses: StatusChange[] = [];
  readonly retries: RawRecord[] = [];
  readonly deadLetters: RawRecord[] = [];
  readonly service: SendBatchService;
  readonly claims: MessageClaimsRepository;
  readonly sendingConfig: SendingConfig;
  readonly rateLimit: RateLimitService;
  readonly rateMetrics: RateLimitMetrics;
  private seq = 0;

  constructor(private readonly options: HarnessOptions) {
    const logger = (): PinoLogger => new PinoLogger({ pinoHttp: { level: 'silent' } });
    const registry = new MetricsRegistry('notification-sender-test');
    this.sendingConfig = loadConfig(SendingConfig, options.sendingEnv ?? {});
    const providersConfig = loadConfig(ProvidersConfig, options.providersEnv ?? {});
    const rateConfig = loadConfig(RateLimitConfig, { RATE_LIMIT_KEY_PREFIX: options.keyPrefix });
    this.rateMetrics = new RateLimitMetrics(registry);
    const realLimiter = new RateLimitService(
      new RateLimitRepository(options.redis, rateConfig),
      rateConfig,
      this.rateMetrics,
      logger(),
    );
    this.rateLimit = options.rateLimit?.(realLimiter) ?? realLimiter;
    this.claims = options.claims ?? messageClaimsRepository(options.ds, registry);
    const realCampaigns = new CampaignContentRepository(options.ds, this.sendingConfig);
    const credential = {
      ...credentialFor(Provider.Simulator, { baseUrl: 'http://127.0.0.1:9' }, 'key', {
        id: options.credentialId,
      }),
      limits: { ceiling: 1_000, floor: 50, ...options.limits, tenantCapPerSec: null },
    };
    const credentials = { load: () => Promise.resolve({ ok: true, credential }) };
    const statuses = {
      publish: (changes: readonly StatusChange[]): Promise<void> => {
        this.statuses.push(...changes);
        return Promise.resolve();
      },
    };
    const producer = {
      publishRaw: (topic: string, records: readonly RawRecord[]): Promise<void> => {
        (topic === Topics.deadLetters.name ? this.deadLetters : this.retries).push(...records);
        return Promise.resolve();
      },
    };
    const metrics = new SendingMetrics(registry);
    const grants = new SendGrantsService(this.rateLimit, metrics, logger());
    const settlement = new SendSettlementService(
      this.claims,
      statuses as unknown as StatusEventsPublisher,
      new RetryRoutingService(producer as unknown as KafkaProducer, this.sendingConfig),
      metrics,
    );
    const slices = new SendSlicesService(
      grants,
      new SendClaimsService(this.claims, this.sendingConfig, providersConfig, metrics, logger()),
      new ContentRenderingService(options.campaigns?.(realCampaigns) ?? realCampaigns),
      new ProviderExchangeService(options.provider as unknown as ProviderRegistry, grants, logger()),
      settlement,
    );
    this.service = new SendBatchService(
      this.claims,
      new RunStatesRepository(options.ds),
      credentials as unknown as CredentialLoader,
      slices,
      settlement,
      metrics,
    );
  }

  /** A campaign batch of these messages, as the expander publishes it (no content: the campaign's template). */
  batch(run: SeededRun, ids: readonly string[]): ConsumedMessage<MessageBatchV1> {
    const value: MessageBatchV1 = {
      batchId: `b-${run.runId}-${++this.seq}`,
      lane: SendLane.Bulk,
      tenantId: 't',
      campaignId: run.campaignId,
      runId: run.runId,
      seq: this.seq,
      leaseEpoch: 0,
      credentialId: this.options.credentialId,
      channel: Channel.Sms,
      items: ids.map((id) => ({
        messageId: id,
        recipient: run.recipients.get(id) ?? '',
        variables: { name: id },
      })),
      createdAt: new Date().toISOString(),
    };
    return {
      value,
      key: run.campaignId,
      topic: 'batches',
      partition: 0,
      offset: String(this.seq),
      headers: {},
      attempt: 0,
    };
  }
}

export interface SeededRun {
  readonly runId: string;
  readonly campaignId: string;
  readonly ids: string[];
  readonly recipients: Map<string, string>;
}

/** A RUNNING run of `n` PENDING messages of one campaign and credential. */
export async function seedRun(
  ds: DataSource,
  settings: TestMysqlSettings,
  campaignId: string,
  credentialId: string,
  n: number,
): Promise<SeededRun> {
  await seedCampaign(settings, { campaignId, tenantId: 't', credentialId, contacts: n });
  const result = (await ds.query(
    `INSERT INTO runs (campaign_id, fire_at, state, total, pending) VALUES (?, UTC_TIMESTAMP(3), 'RUNNING', ?, ?)`,
    [campaignId, n, n],
  )) as { insertId: number };
  const runId = String(result.insertId);
  await ds.query(
    `INSERT INTO messages (run_id, campaign_id, tenant_id, contact_id, channel, credential_id, recipient, lane, state)
     SELECT ?, campaign_id, 't', id, 'sms', ?, address, 'bulk', 'PENDING' FROM contacts WHERE campaign_id = ?`,
    [runId, credentialId, campaignId],
  );
  const rows = (await ds.query('SELECT id, recipient FROM messages WHERE run_id = ? ORDER BY id', [
    runId,
  ])) as {
    id: string;
    recipient: string;
  }[];
  return {
    runId,
    campaignId,
    ids: rows.map((r) => String(r.id)),
    recipients: new Map(rows.map((r) => [String(r.id), r.recipient])),
  };
}

/** Message states of a run, with the attempts each state's rows have counted. */
export async function statesOf(
  ds: DataSource,
  runId: string,
): Promise<Record<string, { readonly count: number; readonly attempts: number }>> {
  const rows = (await ds.query(
    'SELECT state, COUNT(*) AS n, SUM(attempts) AS attempts FROM messages WHERE run_id = ? GROUP BY state',
    [runId],
  )) as { state: string; n: string; attempts: string }[];
  return Object.fromEntries(rows.map((r) => [r.state, { count: Number(r.n), attempts: Number(r.attempts) }]));
}
