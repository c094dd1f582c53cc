import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { planCallbacks } from '@ums/domain';
import { errorMessage } from '@ums/platform';
import { Pool } from 'undici';
import { CredentialsService } from '../credentials/credentials.service';
import { MessageRecords } from '../records/message-records.service';
import { simulatorNow } from '../simulator-clock';
import type { SimulatedCredential } from '../credentials/simulated-credential';
import {
  buildCallbackPosts,
  type CallbackPost,
  sendsCallbacks,
  statusCapabilities,
} from './callback-payloads';
import { CallbacksConfig } from './callbacks.config';
import { CallbacksMetrics } from './callbacks.metrics';
import type { AcceptedSend, StatusEvent } from './status-event';

/** Callback counts of one credential, shown in /_sim/stats. */
export interface CallbackCounts {
  /** Statuses planned (duplicates included). */
  scheduled: number;
  /** Statuses whose post was answered 2xx. */
  delivered: number;
  /** Statuses whose post failed every attempt. */
  failed: number;
  /** Statuses not planned because too many were pending. */
  dropped: number;
  posts: number;
  retries: number;
  failedPosts: number;
}

const newCounts = (): CallbackCounts => ({
  scheduled: 0,
  delivered: 0,
  failed: 0,
  dropped: 0,
  posts: 0,
  retries: 0,
  failedPosts: 0,
});

/**
 * Sends the status callbacks of accepted sends, the way providers do: a few steps after the
 * send (credential.callbacks.delayMs apart), in the provider's webhook shape and signature, with
 * the configured failures, duplicates and out-of-order arrivals. Statuses wait in slots of
 * SIMULATOR_CALLBACK_FLUSH_MS (a timing wheel, no timer per message); each flush groups the due
 * ones per credential and URL into posts sent through an undici Pool per origin. Failed posts are
 * retried with doubling delays, unchanged (same body, same signature); posts that must stay in
 * order (see buildCallbackPosts) wait for their predecessor, retries included.
 */
@Injectable()
export class CallbackDispatcher implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(CallbackDispatcher.name);
  private readonly wheel = new Map<number, StatusEvent[]>();
  private lastSlot: number;
  private timer: NodeJS.Timeout | undefined;
  private readonly sleepers = new Set<() => void>();
  private readonly chains = new Map<string, Promise<void>>();
  private stopped = false;
  private readonly pools = new Map<string, Pool>();
  private readonly counts = new Map<string, CallbackCounts>();
  private readonly epochs = new Map<string, number>();
  private pending = 0;
  private failureLogged = 0;

  constructor(
    private readonly config: CallbacksConfig,
    private readonly metrics: CallbacksMetrics,
    private readonly credentials: CredentialsService,
    private readonly records: MessageRecords,
  ) {
    this.lastSlot = Math.floor(simulatorNow() / config.SIMULATOR_CALLBACK_FLUSH_MS);
    credentials.onRemoved((id) => {
      this.reset(id);
      this.counts.delete(id);
    });
    metrics.readPendingFrom(() => this.pending);
  }

  onModuleInit(): void {
    this.timer = setInterval(() => this.flush(simulatorNow()), this.config.SIMULATOR_CALLBACK_FLUSH_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    this.stopped = true;
    for (const wake of [...this.sleepers]) wake();
    // Callbacks still due are dropped on shutdown: providers' own retries are not simulated across restarts.
    await Promise.all([...this.pools.values()].map((pool) => pool.destroy()));
    this.pools.clear();
  }

  /** Plans the status callbacks of sends just accepted on `credential`. */
  schedule(credential: SimulatedCredential, sends: readonly AcceptedSend[], nowMs: number): void {
    const behaviour = credential.callbacks;
    if (!behaviour.enabled || sends.length === 0 || !sendsCallbacks(credential.provider)) return;
    const counts = this.countsOf(credential.id);
    const epoch = this.epochs.get(credential.id) ?? 0;
    const flushMs = this.config.SIMULATOR_CALLBACK_FLUSH_MS;
    for (const send of sends) {
      const url = send.callbackUrl ?? credential.callbackUrl;
      if (url === undefined) continue;
      const plan = planCallbacks(
        behaviour,
        statusCapabilities(credential.provider, send.channel),
        Math.random,
      );
      if (this.pending + plan.length > this.config.SIMULATOR_CALLBACK_MAX_PENDING) {
        counts.dropped += plan.length;
        this.metrics.events.inc({ provider: credential.provider, result: 'dropped' }, plan.length);
        continue;
      }
      for (const step of plan) {
        const slot = Math.max(
          this.lastSlot + 1,
          Math.ceil((nowMs + step.step * behaviour.delayMs) / flushMs),
        );
        let due = this.wheel.get(slot);
        if (due === undefined) {
          due = [];
          this.wheel.set(slot, due);
        }
        due.push({ send, status: step.status, credentialId: credential.id, url, epoch });
      }
      this.pending += plan.length;
      counts.scheduled += plan.length;
    }
  }

  /** Callback counts of one credential, or of all together. */
  countsFor(credentialId: string | undefined): CallbackCounts {
    if (credentialId !== undefined) return { ...(this.counts.get(credentialId) ?? newCounts()) };
    const total = newCounts();
    for (const c of this.counts.values()) {
      for (const key of Object.keys(total) as (keyof CallbackCounts)[]) total[key] += c[key];
    }
    return total;
  }

  get pendingCount(): number {
    return this.pending;
  }

  /** Drops the callbacks still pending (for one credential or all) and zeroes their counts. */
  reset(credentialId: string | undefined): void {
    const ids = credentialId !== undefined ? [credentialId] : [...this.counts.keys()];
    for (const id of ids) {
      this.epochs.set(id, (this.epochs.get(id) ?? 0) + 1);
      this.counts.set(id, newCounts());
    }
    for (const [slot, events] of this.wheel) {
      const kept = events.filter((e) => !ids.includes(e.credentialId));
      this.pending -= events.length - kept.length;
      if (kept.length === 0) this.wheel.delete(slot);
      else this.wheel.set(slot, kept);
    }
  }

  /** Posts every status due by `nowMs`. */
  flush(nowMs: number): void {
    const slot = Math.floor(nowMs / this.config.SIMULATOR_CALLBACK_FLUSH_MS);
    const groups = new Map<string, StatusEvent[]>();
    for (let s = this.lastSlot + 1; s <= slot; s++) {
      const due = this.wheel.get(s);
      if (due === undefined) continue;
      this.wheel.delete(s);
      for (const event of due) {
        const key = `${event.credentialId}\n${event.url}`;
        const group = groups.get(key);
        if (group === undefined) groups.set(key, [event]);
        else group.push(event);
      }
    }
    this.lastSlot = Math.max(this.lastSlot, slot);
    for (const events of groups.values()) {
      const first = events[0];
      if (first === undefined) continue;
      const credential = this.credentials.find(first.credentialId);
      const current = events.filter((e) => this.isCurrent(e.credentialId, e.epoch));
      // The provider's own record moves when the status happens, whether or not its post gets through.
      for (const e of current)
        this.records.advance(e.credentialId, e.send.providerMessageId, e.status, nowMs);
      this.pending -= events.length - current.length;
      if (credential === undefined || current.length === 0) {
        this.pending -= current.length;
        continue;
      }
      const posts = buildCallbackPosts(
        credential,
        first.url,
        current,
        nowMs,
        this.config.SIMULATOR_CALLBACK_BATCH_SIZE,
      );
      // A provider changed to one without callbacks since they were planned: nothing to post.
      this.pending -= current.length - posts.reduce((sum, post) => sum + post.events, 0);
      for (const post of posts) this.send(post);
    }
  }

  /** Sends a post after the previous one with the same order key has finished. */
  private send(post: CallbackPost): void {
    const previous = this.chains.get(post.orderKey);
    const run = (previous ?? Promise.resolve()).then(() => this.deliver(post));
    this.chains.set(post.orderKey, run);
    void run.finally(() => {
      if (this.chains.get(post.orderKey) === run) this.chains.delete(post.orderKey);
    });
  }

  /** Posts with retries (doubling delays, the same body and signature); never rejects. */
  private async deliver(post: CallbackPost): Promise<void> {
    const counts = this.countsOf(post.credentialId);
    for (let attempt = 1; ; attempt++) {
      if (this.stopped || !this.isCurrent(post.credentialId, post.epoch)) {
        this.pending -= post.events;
        return;
      }
      counts.posts++;
      try {
        await this.post(post);
        this.settle(post, counts, true);
        return;
      } catch (error: unknown) {
        if (attempt >= this.config.SIMULATOR_CALLBACK_MAX_ATTEMPTS) {
          // One line per second at most: a dead callback receiver must not flood the log.
          if (Date.now() - this.failureLogged > 1000) {
            this.failureLogged = Date.now();
            this.logger.warn(
              `Callback post to ${post.url} failed after ${attempt} attempt(s): ${errorMessage(error)}`,
            );
          }
          this.settle(post, counts, false);
          return;
        }
        counts.retries++;
        this.metrics.posts.inc({ provider: post.provider, result: 'retried' });
        await this.sleep(this.config.SIMULATOR_CALLBACK_RETRY_BASE_MS * 2 ** (attempt - 1));
      }
    }
  }

  private async post(post: CallbackPost): Promise<void> {
    const url = new URL(post.url);
    const response = await this.poolFor(url.origin).request({
      method: 'POST',
      path: `${url.pathname}${url.search}`,
      headers: post.headers,
      body: post.body,
    });
    await response.body.dump();
    if (response.statusCode < 200 || response.statusCode >= 300) {
      throw new Error(`answered HTTP ${response.statusCode}`);
    }
  }

  /** A delay that shutdown cuts short. */
  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.sleepers.add(wake);
    });
  }

  private settle(post: CallbackPost, counts: CallbackCounts, ok: boolean): void {
    this.pending -= post.events;
    if (!this.isCurrent(post.credentialId, post.epoch)) return;
    if (ok) counts.delivered += post.events;
    else {
      counts.failed += post.events;
      counts.failedPosts++;
    }
    this.metrics.posts.inc({ provider: post.provider, result: ok ? 'ok' : 'failed' });
    this.metrics.events.inc({ provider: post.provider, result: ok ? 'delivered' : 'failed' }, post.events);
  }

  private isCurrent(credentialId: string, epoch: number): boolean {
    return (this.epochs.get(credentialId) ?? 0) === epoch;
  }

  private countsOf(credentialId: string): CallbackCounts {
    let counts = this.counts.get(credentialId);
    if (counts === undefined) {
      counts = newCounts();
      this.counts.set(credentialId, counts);
    }
    return counts;
  }

  private poolFor(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (pool === undefined) {
      const timeout = this.config.SIMULATOR_CALLBACK_TIMEOUT_MS;
      pool = new Pool(origin, {
        connections: this.config.SIMULATOR_CALLBACK_CONNECTIONS,
        headersTimeout: timeout,
        bodyTimeout: timeout,
        connect: { timeout },
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }
}
