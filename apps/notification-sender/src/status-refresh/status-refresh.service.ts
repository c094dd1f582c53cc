import { Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { MessageStatus } from '@ums/contracts';
import { ConfigValidationError, withNamedLock } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { DataSource } from 'typeorm';
import { SendingConfig } from '../sending/sending.config';
import { StatusRefreshConfig } from './status-refresh.config';
import { StatusRefreshMetrics } from './status-refresh.metrics';
import { addCounts, noneSettled, type SettledCounts } from './status-refresh.plan';
import { type OpenRequest, StatusRefreshRepository } from './status-refresh.repository';
import { StatusRefreshSettler } from './status-refresh.settler';

/** One replica refreshes at a time (per database). */
const LOCK = { name: 'ums_status_refresh:', waitSeconds: 0, perDatabase: true } as const;

/** What one refresh did: rows settled and left, and the rounds it ran. */
export interface RefreshPass {
  readonly counts: SettledCounts;
  readonly rounds: number;
}

/**
 * Every STATUS_REFRESH_INTERVAL_MS one replica (a named lock) asks providers with a status API
 * about the rows whose fate we do not know: operators' requests for a run first (every UNKNOWN and
 * SENT row of the run, no age threshold), then UNKNOWN rows older than STATUS_REFRESH_UNKNOWN_AFTER_MS
 * (visited in turn) and SENT rows without a callback STATUS_REFRESH_SENT_AFTER_MS after their claim
 * (each asked once). Never sends anything: a message the provider never received becomes FAILED
 * NOT_RECEIVED, for an operator's resend-unknown.
 */
@Injectable()
export class StatusRefreshService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  constructor(
    private readonly config: StatusRefreshConfig,
    private readonly repository: StatusRefreshRepository,
    private readonly settler: StatusRefreshSettler,
    private readonly metrics: StatusRefreshMetrics,
    private readonly dataSource: DataSource,
    private readonly logger: PinoLogger,
    sending: SendingConfig,
  ) {
    this.logger.setContext(StatusRefreshService.name);
    if (config.STATUS_REFRESH_UNKNOWN_AFTER_MS <= sending.SENDER_CLAIM_TIMEOUT_MS) {
      throw new ConfigValidationError([
        {
          field: 'STATUS_REFRESH_UNKNOWN_AFTER_MS',
          reason: `must be more than SENDER_CLAIM_TIMEOUT_MS (${sending.SENDER_CLAIM_TIMEOUT_MS}), got ${config.STATUS_REFRESH_UNKNOWN_AFTER_MS}`,
        },
      ]);
    }
  }

  onApplicationBootstrap(): void {
    this.schedule();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.running;
  }

  /** One refresh if no other replica is running one; undefined when another holds the lock. */
  async refresh(): Promise<RefreshPass | undefined> {
    const locked = await withNamedLock(this.dataSource, LOCK, () => this.pass());
    return locked.acquired ? locked.value : undefined;
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.running = this.refresh()
        .then((pass) => {
          if (pass !== undefined && settledAny(pass.counts))
            this.logger.info({ ...pass.counts, rounds: pass.rounds }, 'Status refresh');
        })
        .catch((error: unknown) =>
          this.logger.error({ err: error }, 'Status refresh failed; retrying on the next tick'),
        )
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) this.schedule();
        });
    }, this.config.STATUS_REFRESH_INTERVAL_MS);
  }

  private async pass(): Promise<RefreshPass> {
    const counts = noneSettled();
    let rounds = 0;
    const budget = this.config.STATUS_REFRESH_MAX_ROUNDS;
    for (let request = await this.repository.openRequest(); request !== undefined && rounds < budget;) {
      addCounts(counts, await this.serveRequest(request));
      rounds++;
      request = await this.repository.openRequest();
    }
    if (this.config.STATUS_REFRESH_ENABLED) {
      for (const state of [MessageStatus.Unknown, MessageStatus.Sent] as const) {
        while (rounds < budget && !this.stopped) {
          rounds++;
          const round = await this.walkRound(state);
          addCounts(counts, round.counts);
          if (round.done) break;
        }
      }
      await this.updateGauge();
    }
    return { counts, rounds };
  }

  /** One round of an operator's request: the run's next UNKNOWN rows, then its SENT rows. */
  private async serveRequest(request: OpenRequest): Promise<SettledCounts> {
    const batch = this.config.STATUS_REFRESH_BATCH;
    let state = request.cursorState;
    let afterId = request.cursorId;
    let rows = await this.repository.ofRun(request.runId, state, afterId, batch);
    if (rows.length === 0 && state === MessageStatus.Unknown) {
      state = MessageStatus.Sent;
      afterId = '0';
      rows = await this.repository.ofRun(request.runId, state, afterId, batch);
    }
    const counts = await this.settler.settle(rows);
    const last = rows[rows.length - 1];
    const finished = state === MessageStatus.Sent && rows.length < batch;
    await this.repository.advanceRequest(request.id, { state, id: last?.id ?? afterId }, counts, finished);
    return counts;
  }

  /** One round of the periodic walk of `state`; `done` when it reached the newest candidate. */
  private async walkRound(
    state: MessageStatus.Unknown | MessageStatus.Sent,
  ): Promise<{ counts: SettledCounts; done: boolean }> {
    const batch = this.config.STATUS_REFRESH_BATCH;
    const cursor = await this.repository.cursor(state);
    const window =
      state === MessageStatus.Unknown
        ? { olderThanMs: this.config.STATUS_REFRESH_UNKNOWN_AFTER_MS }
        : {
            olderThanMs: this.config.STATUS_REFRESH_SENT_AFTER_MS,
            notBeforeMs: this.config.STATUS_REFRESH_SENT_MAX_AGE_MS,
          };
    const rows = await this.repository.walk(state, cursor, window, this.settler.providers, batch);
    const counts = await this.settler.settle(rows);
    const last = rows[rows.length - 1];
    const done = rows.length < batch;
    if (done && state === MessageStatus.Unknown) {
      // UNKNOWN rows left unresolved are asked about again on the next pass, from the oldest.
      await this.repository.saveCursor(state, { claimedAt: new Date(0), messageId: '0' });
    } else if (last !== undefined) {
      await this.repository.saveCursor(state, { claimedAt: last.claimedAt, messageId: last.id });
    }
    return { counts, done };
  }

  private async updateGauge(): Promise<void> {
    const waiting = await this.repository.waiting(
      this.config.STATUS_REFRESH_UNKNOWN_AFTER_MS,
      await this.repository.cursor(MessageStatus.Sent),
      this.config.STATUS_REFRESH_SENT_AFTER_MS,
    );
    this.metrics.unsettled.set({ state: MessageStatus.Unknown }, waiting.unknown);
    this.metrics.unsettled.set({ state: MessageStatus.Sent }, waiting.sent);
  }
}

function settledAny(counts: SettledCounts): boolean {
  return counts.sent + counts.delivered + counts.read + counts.failed + counts.notReceived > 0;
}
