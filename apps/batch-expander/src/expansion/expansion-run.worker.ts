import { type BatchItemV1, type MessageBatchV1, RunState, SendLane, Topics } from '@ums/contracts';
import { chunkItems, expansionBatchId, mayPublishStep } from '@ums/domain';
import type { KafkaProducer } from '@ums/platform';
import type { PinoLogger } from 'nestjs-pino';
import type { ExpansionConfig } from './expansion.config';
import type { ExpansionMetrics } from './expansion.metrics';
import type { ExpansionRepository, LeasedRun, RunProgress } from './expansion.repository';

/** How a worker ended. */
export type WorkerExit = 'expanded' | 'paused' | 'stopped' | 'fenced' | 'handed-off' | 'failed';

export interface WorkerDeps {
  readonly repository: ExpansionRepository;
  readonly producer: KafkaProducer;
  readonly config: ExpansionConfig;
  readonly metrics: ExpansionMetrics;
  readonly logger: PinoLogger;
  readonly owner: string;
}

interface PreparedStep {
  readonly items: BatchItemV1[];
  /** The last contact id of the page; undefined when the audience after the cursor is exhausted (for now). */
  readonly last: string | undefined;
  /** A full page: the audience probably goes on, so the next one is worth preparing now. */
  readonly full: boolean;
}

type Gate = 'go' | Exclude<WorkerExit, 'expanded' | 'failed'>;

const MAX_CONSECUTIVE_ERRORS = 5;

/**
 * Expands one leased run: first re-publishes PENDING messages behind the checkpoint (a pause, a
 * crash or a retry left them unsent), then walks the audience from the checkpoint cursor, one step
 * of a few batches at a time: create message rows, publish the batches, commit the checkpoint.
 * Batches go out before their checkpoint, so a crash re-publishes at most one step (claims dedupe).
 * Between steps it waits, without sleeping, for the poller's news: pause, stop, fencing, or senders
 * catching up (backpressure).
 */
export class ExpansionRunWorker {
  private progress: RunProgress;
  private wake: (() => void) | undefined;
  private stopRequested: 'handed-off' | undefined;
  private published: number;
  private cursor: string;
  waiting = false;

  constructor(
    readonly run: LeasedRun,
    private readonly deps: WorkerDeps,
  ) {
    this.published = run.batchesPublished;
    this.cursor = run.cursor;
    this.progress = {
      runId: run.runId,
      state: RunState.Running,
      epoch: run.epoch,
      owner: deps.owner,
      batchesPublished: run.batchesPublished,
      batchesFinished: 0,
      priority: run.priority,
    };
  }

  /** Recipients per step: batches per step times the batch size. */
  private get stepRows(): number {
    return this.deps.config.EXPANDER_BATCH_SIZE * this.deps.config.EXPANDER_BATCHES_PER_STEP;
  }

  get runId(): string {
    return this.run.runId;
  }

  /** The poller's latest reading of the run row. */
  observe(progress: RunProgress | undefined): void {
    if (progress !== undefined) this.progress = progress;
    this.wake?.();
  }

  /** Ask the worker to stop after its current step (graceful shutdown). */
  requestHandOff(): void {
    this.stopRequested = 'handed-off';
    this.wake?.();
  }

  async execute(): Promise<WorkerExit> {
    let errors = 0;
    for (;;) {
      try {
        return await this.expand();
      } catch (error: unknown) {
        errors++;
        this.deps.metrics.runErrors.inc();
        this.deps.logger.error({ err: error, runId: this.runId, attempt: errors }, 'Expansion step failed');
        if (errors >= MAX_CONSECUTIVE_ERRORS) return 'failed';
        await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** errors));
      }
    }
  }

  private async expand(): Promise<WorkerExit> {
    const exit = await this.publishBacklog();
    if (exit !== undefined) return exit;
    const { repository, owner } = this.deps;
    // The database work of the next step (read contacts, create rows) overlaps the Kafka publish
    // and checkpoint of the current one. A prepared step that is never published is harmless: its
    // rows lie after the checkpoint cursor, so whoever expands next reads them again.
    let next: Promise<PreparedStep> | undefined;
    for (;;) {
      const gate = await this.gate();
      if (gate !== 'go') {
        await next?.catch(() => undefined);
        return gate;
      }
      const endTimer = this.deps.metrics.stepSeconds.startTimer();
      const step = await (next ?? this.prepare(this.cursor));
      next = undefined;
      if (step.last === undefined) {
        if (await repository.importInProgress(this.run.campaignId)) {
          endTimer();
          await this.nextObservation(); // more rows are coming: look again after the next poll
          continue;
        }
        const marked = await repository.markExpanded(this.run, owner);
        endTimer();
        if (!marked) return this.fencedOut();
        this.deps.metrics.runsExpanded.inc();
        return 'expanded';
      }
      if (step.full) {
        next = this.prepare(step.last);
        next.catch(() => undefined); // awaited (and its error surfaced) on the next iteration
      }
      const count = await this.timed('publish', () => this.publish(step.items, 'expand'));
      const committed = await this.timed('checkpoint', () =>
        repository.commitCheckpoint(this.run, owner, step.last as string, count),
      );
      endTimer();
      if (!committed) {
        await next?.catch(() => undefined);
        return this.fencedOut();
      }
      this.cursor = step.last;
      this.published += count;
    }
  }

  /** Reads the page after `cursor`, creates its message rows, and collects the still-PENDING ones. */
  private async prepare(cursor: string): Promise<PreparedStep> {
    const { repository } = this.deps;
    const stepRows = this.stepRows;
    const { campaignId, tenantId, channel } = this.run;
    const contacts = await this.timed('read', () =>
      repository.contactsAfter(campaignId, tenantId, channel, cursor, stepRows),
    );
    const last = contacts[contacts.length - 1]?.contactId;
    if (last === undefined) return { items: [], last: undefined, full: false };
    await this.timed('create', () => repository.createMessages(this.run, contacts));
    const pending = await this.timed('pending', () =>
      repository.pendingInContactRange(this.run.runId, cursor, last),
    );
    const items: BatchItemV1[] = [];
    for (const contact of contacts) {
      const messageId = pending.get(contact.contactId);
      if (messageId === undefined) continue; // skipped (opted out) or already settled by an earlier attempt
      items.push(toItem(messageId, contact.address, contact.variables));
    }
    return { items, last, full: contacts.length === stepRows };
  }

  /** PENDING messages behind the cursor, keyset on message id; the cursor itself does not move. */
  private async publishBacklog(): Promise<WorkerExit | undefined> {
    if (this.cursor === '0') return undefined;
    const { repository, owner } = this.deps;
    const stepRows = this.stepRows;
    let after = '0';
    for (;;) {
      const gate = await this.gate();
      if (gate !== 'go') return gate;
      const messages = await repository.pendingBehindCursor(this.run.runId, this.cursor, after, stepRows);
      if (messages.length === 0) return undefined;
      const items = messages.map((m) => toItem(m.messageId, m.recipient, m.variables));
      const count = await this.publish(items, 'backlog');
      if (!(await repository.commitCheckpoint(this.run, owner, this.cursor, count))) return this.fencedOut();
      this.published += count;
      after = messages[messages.length - 1]?.messageId as string;
    }
  }

  private async publish(items: readonly BatchItemV1[], phase: 'expand' | 'backlog'): Promise<number> {
    if (items.length === 0) return 0;
    const createdAt = new Date().toISOString();
    const batches: MessageBatchV1[] = chunkItems(items, this.deps.config.EXPANDER_BATCH_SIZE).map(
      (batchItems, index) => ({
        batchId: expansionBatchId(this.run.runId, this.run.epoch, this.published + index),
        lane: SendLane.Bulk,
        tenantId: this.run.tenantId,
        campaignId: this.run.campaignId,
        runId: this.run.runId,
        seq: this.published + index,
        leaseEpoch: this.run.epoch,
        credentialId: this.run.credentialId,
        priority: this.progress.priority,
        channel: this.run.channel,
        items: batchItems,
        createdAt,
      }),
    );
    await this.deps.producer.publish(Topics.batches, batches);
    this.deps.metrics.batchesPublished.inc({ phase }, batches.length);
    this.deps.metrics.recipientsPublished.inc({ phase }, items.length);
    return batches.length;
  }

  /** Waits until the next step may go, or says why the worker must end. */
  private async gate(): Promise<Gate> {
    for (;;) {
      if (this.stopRequested !== undefined) return this.stopRequested;
      const p = this.progress;
      if (p.epoch !== this.run.epoch || p.owner !== this.deps.owner) return this.fencedOut();
      if (p.state === RunState.Paused) return 'paused';
      if (p.state !== RunState.Running) return 'stopped';
      const ahead = { batchesPublished: this.published, batchesFinished: p.batchesFinished };
      if (mayPublishStep(ahead, this.deps.config.EXPANDER_MAX_BATCHES_AHEAD)) return 'go';
      await this.nextObservation();
    }
  }

  /** Idles until the poller's next reading (or a hand-off request); counted as healthy waiting. */
  private async nextObservation(): Promise<void> {
    this.waiting = true;
    await new Promise<void>((resolve) => (this.wake = resolve));
    this.wake = undefined;
    this.waiting = false;
  }

  private async timed<T>(phase: string, work: () => Promise<T>): Promise<T> {
    const end = this.deps.metrics.phaseSeconds.startTimer({ phase });
    try {
      return await work();
    } finally {
      end();
    }
  }

  private fencedOut(): 'fenced' {
    this.deps.metrics.fenced.inc();
    this.deps.logger.warn(
      { runId: this.runId, epoch: this.run.epoch },
      'Lease taken over by a newer epoch: this expander is fenced out of the run',
    );
    return 'fenced';
  }
}

function toItem(messageId: string, recipient: string, variables: Record<string, string> | null): BatchItemV1 {
  return variables === null ? { messageId, recipient } : { messageId, recipient, variables };
}
