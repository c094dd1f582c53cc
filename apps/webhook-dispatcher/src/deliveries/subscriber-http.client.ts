import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { classifyDeliveryResponse, type DeliveryOutcome, type WebhookHeaders } from '@ums/domain';
import { createOutboundAgent, createPublicOnlyAgent, errorCode, errorMessage } from '@ums/platform';
import type { Agent } from 'undici';
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

  constructor(private readonly config: DeliveriesConfig) {
    const options = {
      connectTimeoutMs: config.WEBHOOK_TIMEOUT_MS,
      headersTimeoutMs: config.WEBHOOK_TIMEOUT_MS,
      bodyTimeoutMs: config.WEBHOOK_TIMEOUT_MS,
      connections: config.WEBHOOK_CONNECTIONS_PER_ORIGIN,
    };
    this.publicAgent = createPublicOnlyAgent(options);
    this.internalAgent = createOutboundAgent(options);
  }

  async post(url: string, internal: boolean, headers: WebhookHeaders, body: string): Promise<AttemptResult> {
    const target = new URL(url);
    const agent = internal ? this.internalAgent : this.publicAgent;
    try {
      const response = await agent.request({
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'ums-webhooks/1' },
        body,
        // The whole attempt, not only each phase, is bounded by the timeout.
        signal: AbortSignal.timeout(this.config.WEBHOOK_TIMEOUT_MS),
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
    }
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
