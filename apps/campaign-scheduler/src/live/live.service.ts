import { type BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import { type LiveCampaignsFrame, LiveErrorCode, RunErrorCode, type RunSample } from '@ums/contracts';
import {
  describePrincipal,
  NotFoundError,
  type Principal,
  type TenantFilter,
  TooManyError,
} from '@ums/platform';
import type { FastifyReply } from 'fastify';
import { PinoLogger } from 'nestjs-pino';
import { CampaignsRepository } from '../campaigns/campaigns.repository';
import { RunsRepository } from '../runs/runs.repository';
import { ConnectionLimits, type LimitRefusal } from './connection-limits';
import {
  type HubEvent,
  type HubSubscription,
  LIVE_TOPIC_KINDS,
  LiveHub,
  type LiveTopicSpec,
} from './live-hub';
import { LiveConfig } from './live.config';
import { LiveMetrics } from './live.metrics';
import { LiveRepository } from './live.repository';
import { SseConnection } from './sse-connection';

/** One frame a second. */
const TICK_MS = 1_000;
/** What a run's stream sends first: its samples of the last 15 minutes. */
const HISTORY_MS = 15 * 60_000;
/** A `: keep-alive` comment on every stream this often. */
const KEEP_ALIVE_MS = 15_000;
/** The live campaign list: the first page of `GET /v1/campaigns`, newest first. */
const CAMPAIGNS_SHOWN = 50;

const REFUSALS: Readonly<Record<LimitRefusal, { code: LiveErrorCode; message: string }>> = {
  process: {
    code: LiveErrorCode.ProcessLimitReached,
    message: 'This process serves as many live streams as it may; retry later',
  },
  principal: {
    code: LiveErrorCode.PrincipalLimitReached,
    message: 'This credential holds as many live streams as it may; close one first',
  },
};

/**
 * The live streams of the operator console: each opened stream subscribes to a topic of the process's
 * one LiveHub (the caller's campaign list, or one run), so a topic costs one load a second whatever
 * the number of consoles watching it. Tenants are checked before a stream opens (404 as for a missing
 * run); streams are counted against the process and principal limits (429).
 */
@Injectable()
export class LiveService implements BeforeApplicationShutdown {
  private readonly hub: LiveHub;
  private readonly limits: ConnectionLimits;

  constructor(
    private readonly repository: LiveRepository,
    private readonly campaigns: CampaignsRepository,
    private readonly runs: RunsRepository,
    private readonly metrics: LiveMetrics,
    private readonly logger: PinoLogger,
    config: LiveConfig,
  ) {
    this.logger.setContext(LiveService.name);
    this.limits = new ConnectionLimits(
      config.LIVE_MAX_CONNECTIONS,
      config.LIVE_MAX_CONNECTIONS_PER_PRINCIPAL,
    );
    this.hub = new LiveHub({
      tickMs: TICK_MS,
      historyMs: HISTORY_MS,
      graceMs: config.LIVE_HISTORY_GRACE_MS,
      keepAliveMs: KEEP_ALIVE_MS,
      onLoad: (kind) => this.metrics.loads.inc({ topic_kind: kind }),
      onLoadError: (kind, error) => {
        this.metrics.loadErrors.inc({ topic_kind: kind });
        this.logger.warn(
          { err: error, topicKind: kind },
          'Loading a live topic failed; the next second retries',
        );
      },
    });
    this.metrics.observe({
      connections: () => this.limits.open,
      watchedTopics: (kind) => this.hub.watched(kind),
      kinds: LIVE_TOPIC_KINDS,
    });
  }

  /** `event: campaigns` each second: the caller's newest campaigns with their latest runs. */
  streamCampaigns(principal: Principal, reply: FastifyReply): void {
    const tenant = principal.tenantId;
    const spec: LiveTopicSpec<LiveCampaignsFrame> = {
      key: `campaigns:${tenant ?? '*'}`,
      kind: 'campaigns',
      keepsHistory: false,
      load: (at) => this.campaignsFrame(tenant, at),
    };
    this.open(principal, reply, spec, (connection, event) => {
      if (event.type === 'frame') connection.event('campaigns', event.frame);
    });
  }

  /** `event: history` (the samples kept), then `event: sample` each second; 404 for a run the caller may not see. */
  async streamRun(
    principal: Principal,
    campaignId: string,
    runId: string,
    reply: FastifyReply,
  ): Promise<void> {
    const run = await this.runs.find(principal.tenantId, campaignId, runId);
    if (run === undefined) {
      throw new NotFoundError(RunErrorCode.NotFound, `Run ${runId} of campaign ${campaignId} not found`);
    }
    const spec: LiveTopicSpec<RunSample> = {
      key: `run:${campaignId}:${runId}`,
      kind: 'run',
      keepsHistory: true,
      load: (at) => this.repository.runSample(campaignId, runId, at),
    };
    this.open(principal, reply, spec, (connection, event) => {
      if (event.type === 'history') connection.event('history', { samples: event.frames });
      if (event.type === 'frame') connection.event('sample', event.frame);
    });
  }

  /** Ends every stream before the HTTP server closes (it waits for open connections). */
  beforeApplicationShutdown(): void {
    this.hub.close();
  }

  /**
   * Counts the stream against the limits (429 past them), sends its headers and subscribes it to the
   * topic; however the connection ends, it leaves the topic and gives its place back once.
   */
  private open<F>(
    principal: Principal,
    reply: FastifyReply,
    spec: LiveTopicSpec<F>,
    write: (connection: SseConnection, event: HubEvent<F>) => void,
  ): void {
    const answer = this.limits.acquire(describePrincipal(principal));
    if (!answer.ok) {
      const { code, message } = REFUSALS[answer.refusal];
      this.metrics.refused.inc({ code });
      throw new TooManyError(code, message);
    }
    const connection = new SseConnection(reply, () => this.metrics.framesSkipped.inc());
    // Subscribed once the headers are out; a connection that closes before leaves nothing to unsubscribe.
    const held: { subscription?: HubSubscription } = {};
    const opened = Date.now();
    connection.onClose(() => {
      held.subscription?.unsubscribe();
      answer.lease.release();
      // A taken-over reply has no request log line of its own: this one says how the stream went.
      this.logger.info(
        { url: reply.request.url, principal: describePrincipal(principal), durationMs: Date.now() - opened },
        'Live stream closed',
      );
    });
    connection.open();
    if (connection.isClosed) return;
    held.subscription = this.hub.subscribe(spec, (event) => {
      if (event.type === 'end') connection.end();
      else if (event.type === 'keep-alive') connection.comment('keep-alive');
      else write(connection, event);
    });
  }

  private async campaignsFrame(tenant: TenantFilter, at: Date): Promise<LiveCampaignsFrame> {
    const campaigns = await this.campaigns.listNewest(tenant, CAMPAIGNS_SHOWN);
    const latest = await this.repository.latestRuns(campaigns.map((c) => c.id));
    return {
      at: at.toISOString(),
      campaigns: campaigns.map((campaign) => ({ ...campaign, latestRun: latest.get(campaign.id) ?? null })),
    };
  }
}
