import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { signWebhook, type WebhookBatchItem, type WebhookHeaders, webhookRequest } from '@ums/domain';
import { createOutboundAgent, createPublicOnlyAgent } from '@ums/platform';
import type { Agent } from 'undici';
import type { KnownSubscriber } from '../subscribers/subscriber-directory.service';
import { AttemptWatchdog } from './attempt.watchdog';
import { DeliveriesConfig } from './deliveries.config';
import { type AttemptResult, DeliveryAttemptHandler } from './delivery-attempt.handler';

/**
 * POSTs signed deliveries through undici Agents (keep-alive pools per origin, bounded connections),
 * each attempt a dispatch handler (`delivery-attempt.handler.ts`):
 * public subscribers through the SSRF-guarded agent, which checks every address at connect time
 * after DNS; internal ones through a plain agent. Redirects are never followed (undici's Agent
 * follows none without an interceptor), so a 3xx is just a failed attempt.
 */
@Injectable()
export class SubscriberHttpClient implements OnApplicationShutdown {
  private readonly publicAgent: Agent;
  private readonly internalAgent: Agent;
  private readonly watchdog: AttemptWatchdog;
  /** Parsed subscriber URLs: a few per subscriber, parsed once rather than per delivery. */
  private readonly targets = new Map<string, { readonly origin: string; readonly path: string }>();

  constructor(config: DeliveriesConfig) {
    const options = {
      connectTimeoutMs: config.WEBHOOK_TIMEOUT_MS,
      headersTimeoutMs: config.WEBHOOK_TIMEOUT_MS,
      bodyTimeoutMs: config.WEBHOOK_TIMEOUT_MS,
      connections: config.WEBHOOK_CONNECTIONS_PER_ORIGIN,
    };
    this.publicAgent = createPublicOnlyAgent(options);
    this.internalAgent = createOutboundAgent(options);
    this.watchdog = new AttemptWatchdog(config.WEBHOOK_TIMEOUT_MS);
  }

  /**
   * One signed request carrying these events to the subscriber: an event's own body under its id, or,
   * for a batch subscriber (`batch`), a `webhook.batch` body under the batch's id (`webhookBatchId`: the
   * same events, the same id, on every retry and replay). Throws
   * (WebhookBatchPayloadError) before any request when a batched body is not a JSON object; otherwise
   * as post().
   */
  postEvents(
    subscriber: KnownSubscriber,
    items: readonly WebhookBatchItem[],
    batch: boolean,
  ): Promise<AttemptResult> {
    const now = Date.now();
    const { webhookId, body } = webhookRequest(
      items,
      batch ? { subscriberId: subscriber.record.id, timestamp: new Date(now).toISOString() } : undefined,
    );
    const headers = signWebhook(subscriber.keys, webhookId, now / 1000, body);
    return this.post(subscriber.record.url, subscriber.record.internal, headers, body);
  }

  /** Never rejects: every way an attempt ends (answer, error, timeout) is its result. */
  post(url: string, internal: boolean, headers: WebhookHeaders, body: string): Promise<AttemptResult> {
    const agent = internal ? this.internalAgent : this.publicAgent;
    return new Promise((resolve) => {
      const attempt = new DeliveryAttemptHandler(resolve);
      // The whole attempt, not only each phase, is bounded by the timeout (the answer's body included).
      this.watchdog.start(attempt);
      try {
        const target = this.targetOf(url);
        agent.dispatch(
          {
            origin: target.origin,
            path: target.path,
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'ums-webhooks/1' },
            body,
          },
          attempt,
        );
      } catch (error: unknown) {
        attempt.fail(error);
      }
    });
  }

  private targetOf(url: string): { readonly origin: string; readonly path: string } {
    let target = this.targets.get(url);
    if (target === undefined) {
      const parsed = new URL(url);
      target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
      if (this.targets.size >= 10_000) this.targets.clear();
      this.targets.set(url, target);
    }
    return target;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.publicAgent.close(), this.internalAgent.close()]);
  }
}
