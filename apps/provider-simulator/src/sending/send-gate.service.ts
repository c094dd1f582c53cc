import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { type Channel, Provider } from '@ums/contracts';
import { sampleLatencyMs } from '@ums/domain';
import type { FastifyReply } from 'fastify';
import { CallbackDispatcher } from '../callbacks/callback-dispatcher.service';
import type { AcceptedSend } from '../callbacks/status-event';
import type { SimulatedCredential } from '../credentials/simulated-credential';
import { MessageRecords } from '../records/message-records.service';
import type { SendOutcome } from '../stats/credential-stats';
import { StatsService } from '../stats/stats.service';
import { simulatorNow } from '../simulator-clock';
import { SendingConfig } from './sending.config';

/** One message of a send request, as the provider route parsed it. */
export interface SendItem {
  readonly messageId: string | undefined;
  readonly to: string;
  readonly from: string | undefined;
  readonly channel: Channel;
  readonly callbackUrl?: string;
  /** The text, kept for status APIs that show it (Twilio). */
  readonly body?: string;
}

export type ItemResult =
  | { readonly kind: 'accepted'; readonly providerMessageId: string }
  | { readonly kind: 'rejected' }
  | { readonly kind: 'throttled' };

/** What happened to a request; the provider route renders it in its own shape. */
export type GateOutcome =
  | { readonly kind: 'timeout' }
  | { readonly kind: 'error5xx' }
  | { readonly kind: 'throttled' }
  | { readonly kind: 'processed'; readonly items: readonly ItemResult[] };

const REJECTED: ItemResult = { kind: 'rejected' };
const THROTTLED: ItemResult = { kind: 'throttled' };

/**
 * The behaviour every provider route shares, in this order: a random timeout, 5xx or extra
 * 429 (per request), then per message the permanent failures, then capacity: a sliding
 * 1-second window grants up to capacityTps accepted sends (a bulk request may be granted part).
 * Every outcome is counted; accepted sends get their status callbacks planned. Kept free of
 * allocation-heavy work: this runs for every message.
 */
@Injectable()
export class SendGate implements OnModuleDestroy {
  private readonly held = new Set<() => void>();

  constructor(
    private readonly config: SendingConfig,
    private readonly stats: StatsService,
    private readonly callbacks: CallbackDispatcher,
    private readonly records: MessageRecords,
  ) {}

  decide(credential: SimulatedCredential, items: readonly SendItem[], newId: () => string): GateOutcome {
    const stats = this.stats.of(credential);
    const now = simulatorNow();
    const n = items.length;
    const random = Math.random;
    if (credential.timeoutRate > 0 && random() < credential.timeoutRate) {
      // The provider may have sent it before the connection died: the case that leaves UNKNOWN rows.
      if (credential.timeoutDelivers) {
        this.process(credential, items, newId, now);
        this.stats.count(credential, stats, 'timeouts', n, now);
      } else {
        this.attempts(credential, items, 'timeouts', now);
      }
      return { kind: 'timeout' };
    }
    if (credential.error5xxRate > 0 && random() < credential.error5xxRate) {
      this.attempts(credential, items, 'errors5xx', now);
      return { kind: 'error5xx' };
    }
    if (credential.rate429 > 0 && random() < credential.rate429) {
      this.attempts(credential, items, 'throttled', now);
      return { kind: 'throttled' };
    }
    return this.process(credential, items, newId, now);
  }

  /** Answers after the credential's sampled latency. */
  async reply(
    credential: SimulatedCredential,
    reply: FastifyReply,
    status: number,
    body: unknown,
    headers?: Readonly<Record<string, string>>,
  ): Promise<void> {
    const latency = sampleLatencyMs(credential.latency, Math.random);
    if (latency >= 1) await new Promise((resolve) => setTimeout(resolve, latency));
    if (headers !== undefined) void reply.headers(headers);
    void reply.status(status).send(body);
  }

  /**
   * Holds a request without answering, past any sane client timeout; closes the connection when
   * the hold ends (or at shutdown). A client that gives up first releases it at once.
   */
  hold(reply: FastifyReply): Promise<void> {
    reply.hijack();
    const res = reply.raw;
    return new Promise((resolve) => {
      const release = (): void => {
        clearTimeout(timer);
        res.off('close', release);
        this.held.delete(release);
        if (!res.destroyed) res.destroy();
        resolve();
      };
      const timer = setTimeout(release, this.config.SIMULATOR_TIMEOUT_HOLD_MS);
      res.once('close', release);
      this.held.add(release);
      // A client that left before the hold began sends no 'close' any more.
      if (res.socket === null || res.socket.destroyed) release();
    });
  }

  onModuleDestroy(): void {
    for (const release of [...this.held]) release();
  }

  private process(
    credential: SimulatedCredential,
    items: readonly SendItem[],
    newId: () => string,
    now: number,
  ): GateOutcome {
    const stats = this.stats.of(credential);
    const n = items.length;
    const permanent = credential.permanentFailures;
    let needCapacity = n;
    if (permanent.size > 0) for (const item of items) if (permanent.has(item.to)) needCapacity--;
    let granted = needCapacity > 0 ? stats.window.take(now, needCapacity, credential.capacityTps) : 0;
    if (granted === 0 && needCapacity === n) {
      this.attempts(credential, items, 'throttled', now);
      return { kind: 'throttled' };
    }
    const results = new Array<ItemResult>(n);
    const accepted: AcceptedSend[] = [];
    let rejected = 0;
    let throttled = 0;
    for (let i = 0; i < n; i++) {
      const item = items[i] as SendItem;
      if (permanent.size > 0 && permanent.has(item.to)) {
        results[i] = REJECTED;
        rejected++;
        this.stats.trackAttempt(stats, item.messageId);
      } else if (granted > 0) {
        granted--;
        const providerMessageId = newId();
        results[i] = { kind: 'accepted', providerMessageId };
        this.stats.trackAccepted(stats, item.messageId);
        accepted.push({
          messageId: item.messageId,
          providerMessageId,
          to: item.to,
          from: item.from,
          channel: item.channel,
          callbackUrl: item.callbackUrl,
        });
        this.keep(credential, item, providerMessageId, now);
      } else {
        results[i] = THROTTLED;
        throttled++;
        this.stats.trackAttempt(stats, item.messageId);
      }
    }
    this.stats.count(credential, stats, 'accepted', accepted.length, now);
    this.stats.count(credential, stats, 'rejectedPermanent', rejected, now);
    this.stats.count(credential, stats, 'throttled', throttled, now);
    this.callbacks.schedule(credential, accepted, now);
    return { kind: 'processed', items: results };
  }

  /** The accepted send, for the providers' status lookups (Twilio's list reads it by recipient). */
  private keep(
    credential: SimulatedCredential,
    item: SendItem,
    providerMessageId: string,
    now: number,
  ): void {
    const send = {
      credentialId: credential.id,
      messageId: item.messageId,
      providerMessageId,
      to: item.to,
      from: item.from,
      body: item.body,
      createdAt: now,
    };
    this.records.accept(send, credential.provider === Provider.Twilio);
  }

  private attempts(
    credential: SimulatedCredential,
    items: readonly SendItem[],
    outcome: SendOutcome,
    now: number,
  ): void {
    const stats = this.stats.of(credential);
    for (const item of items) this.stats.trackAttempt(stats, item.messageId);
    this.stats.count(credential, stats, outcome, items.length, now);
  }
}
