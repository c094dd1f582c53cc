import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Injectable, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { RunRequestedV1, RunRequestReason, Topics } from '@ums/contracts';
import { KafkaProducer } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { ExpansionConfig } from './expansion.config';
import { ExpansionMetrics } from './expansion.metrics';
import { ExpansionRepository } from './expansion.repository';
import { ExpansionRunWorker, type WorkerExit } from './expansion-run.worker';

/**
 * Drives every run this process expands. Many runs progress at once: each is an async worker that
 * waits on promises, not timers, and one poller reads all their rows in a single query to wake
 * them (seed 002, issue 3: workers sleeping between iterations capped parallel campaigns).
 */
@Injectable()
export class ExpansionService implements OnModuleInit, BeforeApplicationShutdown {
  readonly owner: string;
  private readonly workers = new Map<string, { worker: ExpansionRunWorker; done: Promise<WorkerExit> }>();
  private readonly slotWaiters: (() => void)[] = [];
  private poller: NodeJS.Timeout | undefined;
  private polling = false;
  private shuttingDown = false;

  constructor(
    private readonly repository: ExpansionRepository,
    private readonly producer: KafkaProducer,
    private readonly config: ExpansionConfig,
    private readonly metrics: ExpansionMetrics,
    private readonly logger: PinoLogger,
  ) {
    this.logger.setContext(ExpansionService.name);
    this.owner =
      config.EXPANDER_INSTANCE_ID ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  }

  onModuleInit(): void {
    this.poller = setInterval(() => void this.poll(), this.config.EXPANDER_POLL_MS);
  }

  /** Graceful shutdown: every worker ends its step, and its run is handed to another replica at once. */
  async beforeApplicationShutdown(): Promise<void> {
    this.shuttingDown = true;
    for (const { worker } of this.workers.values()) worker.requestHandOff();
    await Promise.all([...this.workers.values()].map(({ done }) => done));
    if (this.poller !== undefined) clearInterval(this.poller);
  }

  get activeRuns(): number {
    return this.workers.size;
  }

  /**
   * Takes the run's lease for the request's epoch and starts expanding it in the background. The
   * request is done once the lease is durable; from then on the checkpoint carries the run, and
   * the scheduler's sweeper re-requests it if this process dies.
   */
  async accept(request: RunRequestedV1): Promise<void> {
    const current = this.workers.get(request.runId);
    if (current !== undefined) {
      if (request.leaseEpoch <= current.worker.run.epoch) {
        this.metrics.leases.inc({ outcome: 'refused' });
        return; // a duplicate of what this process already does
      }
      // A newer epoch for a run still expanded here: the sweeper judged us stale. Yield and compete.
      await current.done;
    }
    await this.waitForSlot();
    const leased = await this.repository.takeLease(request.runId, request.leaseEpoch, this.owner);
    if (leased === undefined) {
      this.metrics.leases.inc({ outcome: 'refused' });
      this.logger.info(
        { runId: request.runId, epoch: request.leaseEpoch, reason: request.reason },
        'Run request refused: outdated epoch, run not runnable, or lease held by another expander',
      );
      this.releaseSlot();
      return;
    }
    this.metrics.leases.inc({ outcome: 'taken' });
    this.logger.info(
      { runId: leased.runId, campaignId: leased.campaignId, epoch: leased.epoch, cursor: leased.cursor },
      'Lease taken: expanding',
    );
    const worker = new ExpansionRunWorker(leased, {
      repository: this.repository,
      producer: this.producer,
      config: this.config,
      metrics: this.metrics,
      logger: this.logger,
      owner: this.owner,
    });
    const done = worker
      .execute()
      .then((exit) => this.finish(worker, exit))
      .finally(() => {
        this.workers.delete(worker.runId);
        this.metrics.activeRuns.set(this.workers.size);
        this.releaseSlot();
      });
    this.workers.set(worker.runId, { worker, done });
    this.metrics.activeRuns.set(this.workers.size);
  }

  private async finish(worker: ExpansionRunWorker, exit: WorkerExit): Promise<WorkerExit> {
    const { run } = worker;
    this.logger.info({ runId: run.runId, epoch: run.epoch, exit }, 'Expansion ended');
    try {
      if (exit === 'paused' || exit === 'stopped') {
        await this.repository.releaseLease(run.runId, run.epoch, this.owner);
      } else if (exit === 'handed-off') {
        const epoch = await this.repository.handOff(run.runId, run.epoch, this.owner);
        if (epoch !== undefined) {
          const request: RunRequestedV1 = {
            runId: run.runId,
            campaignId: run.campaignId,
            tenantId: run.tenantId,
            leaseEpoch: epoch,
            reason: RunRequestReason.Handoff,
            requestedAt: new Date().toISOString(),
          };
          await this.producer.publish(Topics.runRequested, [request]);
        }
      }
      // failed: the lease stays; the checkpoint goes stale and the sweeper re-requests the run.
    } catch (error: unknown) {
      this.logger.error(
        { err: error, runId: run.runId, exit },
        'Could not release the lease; the sweeper will',
      );
    }
    return exit;
  }

  private async poll(): Promise<void> {
    if (this.polling || this.workers.size === 0) return;
    this.polling = true;
    try {
      const ids = [...this.workers.keys()];
      const rows = await this.repository.progressOf(ids);
      const byId = new Map(rows.map((row) => [row.runId, row]));
      const waiting: string[] = [];
      for (const { worker } of this.workers.values()) {
        if (worker.waiting) waiting.push(worker.runId);
        worker.observe(byId.get(worker.runId));
      }
      this.metrics.waitingRuns.set(waiting.length);
      await this.repository.heartbeat(waiting, this.owner);
    } catch (error: unknown) {
      this.logger.error({ err: error }, 'Polling run states failed; retrying on the next tick');
    } finally {
      this.polling = false;
    }
  }

  private async waitForSlot(): Promise<void> {
    if (this.shuttingDown) throw new Error('Shutting down: not taking new runs');
    if (this.workers.size + this.slotWaiters.length < this.config.EXPANDER_MAX_ACTIVE_RUNS) return;
    await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
  }

  private releaseSlot(): void {
    this.slotWaiters.shift()?.();
  }
}
