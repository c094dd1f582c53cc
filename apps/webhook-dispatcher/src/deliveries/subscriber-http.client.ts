import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { classifyDeliveryResponse, type DeliveryOutcome, type WebhookHeaders } from '@ums/domain';
import { createOutboundAgent, createPublicOnlyAgent, errorCode, errorMessage } from '@ums/platform';
import type { Agent } from 'undici';
import { AttemptWatchdog } from './attempt.watchdog';
import { DeliveriesConfig } from './deliveries.config';

/** An attempt's outcome plus whether the SSRF guard refused the address (no connection was made). */
export type AttemptResult = DeliveryOutcome & { readonly refused?: boolean };

/**
 * POSTs signed deliveries through undici Agents (keep-alive pools per origin, bounded connections):
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

  async post(url: string, internal: boolean, headers: WebhookHeaders, body: string): Promise<AttemptResult> {
    const agent = internal ? this.internalAgent : this.publicAgent;
    // The whole attempt, not only each phase, is bounded by the timeout (the body's dump included).
    const signal = this.watchdog.start();
    try {
      const target = this.targetOf(url);
      const response = await agent.request({
        origin: target.origin,
        path: target.path,
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'ums-webhooks/1' },
        body,
        signal,
      });
      // The answer's body is not ours to read; drain it so the connection is reused.
      await response.body.dump({ limit: 65_536 });
      const retryAfter = response.headers['retry-after'];
      return classifyDeliveryResponse(
        response.statusCode,
        Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
        Date.now(),
      );
    } catch (error: unknown) {
      const code = errorCode(error);
      const refused = code === 'ADDRESS_NOT_PUBLIC';
      const cause = refused ? code : transportCode(error);
      return { kind: 'failed', error: `${cause}: ${errorMessage(error)}`.slice(0, 1024), refused };
    } finally {
      this.watchdog.end(signal);
    }
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

function transportCode(error: unknown): string {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') return error.code;
  if (error instanceof Error && error.name === 'TimeoutError') return 'TIMEOUT';
  return 'TRANSPORT';
}
