import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { type SnsUrlPolicy, snsUrlProblem } from '@ums/domain';
import { InvalidInputError, UnavailableError } from '@ums/platform';
import { Agent, request } from 'undici';
import { CallbackErrorCode } from '@ums/contracts';
import { CallbacksConfig } from './callbacks.config';

// Signing certificates are a few KB; SNS rotates them rarely, so a small cache serves every post.
const MAX_CERTIFICATE_BYTES = 64 * 1024;
const MAX_CACHED = 64;
const CERTIFICATE_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * The only outbound HTTP of webhook-ingest: SNS signing certificates (cached) and subscription
 * confirmations. Every URL must pass the SNS host policy first (INGEST_SNS_HOST_PATTERN, https
 * unless INGEST_SNS_ALLOW_HTTP), so a forged body cannot make this service fetch anything else; no
 * redirects are followed (undici's request follows none).
 */
@Injectable()
export class SnsClient implements OnApplicationShutdown {
  readonly policy: SnsUrlPolicy;
  private readonly agent: Agent;
  private readonly certificates = new Map<string, { expiresAt: number; pem: Promise<string> }>();

  constructor(private readonly config: CallbacksConfig) {
    this.policy = {
      hostPattern: new RegExp(config.INGEST_SNS_HOST_PATTERN),
      allowHttp: config.INGEST_SNS_ALLOW_HTTP,
    };
    this.agent = new Agent({
      connect: { timeout: config.INGEST_SNS_FETCH_TIMEOUT_MS },
      headersTimeout: config.INGEST_SNS_FETCH_TIMEOUT_MS,
      bodyTimeout: config.INGEST_SNS_FETCH_TIMEOUT_MS,
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.agent.close();
  }

  /** The PEM certificate at an SNS SigningCertURL (refused unless the policy allows the URL). */
  certificate(url: string): Promise<string> {
    this.check(url, 'certificate', 'SigningCertURL');
    const now = Date.now();
    const cached = this.certificates.get(url);
    if (cached !== undefined && cached.expiresAt > now) return cached.pem;
    if (this.certificates.size >= MAX_CACHED) this.certificates.clear();
    const entry = { expiresAt: now + CERTIFICATE_TTL_MS, pem: this.fetchText(url, 'certificate') };
    this.certificates.set(url, entry);
    entry.pem.catch(() => {
      if (this.certificates.get(url) === entry) this.certificates.delete(url);
    });
    return entry.pem;
  }

  /** Confirms a subscription by visiting its SubscribeURL, as SNS asks. */
  async confirmSubscription(url: string): Promise<void> {
    this.check(url, 'subscribe', 'SubscribeURL');
    await this.fetchText(url, 'subscription confirmation');
  }

  private check(url: string, kind: 'certificate' | 'subscribe', field: string): void {
    const problem = snsUrlProblem(url, this.policy, kind);
    if (problem !== undefined) throw InvalidInputError.field(CallbackErrorCode.SnsUrlRefused, field, problem);
  }

  private async fetchText(url: string, what: string): Promise<string> {
    try {
      const answer = await request(url, { method: 'GET', dispatcher: this.agent });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of answer.body) {
        const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
        size += buffer.length;
        if (size > MAX_CERTIFICATE_BYTES) {
          answer.body.destroy();
          throw new Error(`answer larger than ${MAX_CERTIFICATE_BYTES} bytes`);
        }
        chunks.push(buffer);
      }
      if (answer.statusCode < 200 || answer.statusCode >= 300) throw new Error(`HTTP ${answer.statusCode}`);
      return Buffer.concat(chunks).toString('utf8');
    } catch (error: unknown) {
      // SNS retries a delivery we answer with 5xx, so a fetch that failed is worth another try.
      throw new UnavailableError(
        CallbackErrorCode.SnsUnavailable,
        `SNS ${what} could not be fetched: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
