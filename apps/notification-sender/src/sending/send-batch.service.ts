import { Injectable } from '@nestjs/common';
import { KafkaHeaders, type MessageBatchV1 } from '@ums/contracts';
import type { ConsumedMessage } from '@ums/platform';
import { CredentialLoader } from '../providers/credential-loader.service';
import { MessageClaimsRepository } from './message-claims.repository';
import { RunStatesRepository } from './run-states.repository';
import { SendSettlementService } from './send-settlement.service';
import { SendSlicesService } from './send-slices.service';
import { SendingMetrics } from './sending.metrics';

/**
 * Sends one batch exactly once per message (docs/architecture.md, Guarantees and Sending):
 * tokens from the credential's shared bucket first, then, for each grant, the granted messages are
 * claimed in MySQL (PENDING -> SENDING under a claim token, SKIP LOCKED), the claim is refreshed
 * right before the provider call (only rows still held go, and none starts past the claim's window),
 * sent through the provider adapter, and their results recorded by the claim's owner (SendSlicesService).
 * A failure between claim and provider call gives the claim back to PENDING and is rethrown.
 * Retryable results wait on a send retry tier (only those items), exhausted ones go to the
 * dead-letter topic, ambiguous ones become UNKNOWN (SendSettlementService).
 */
@Injectable()
export class SendBatchService {
  constructor(
    private readonly claims: MessageClaimsRepository,
    private readonly runs: RunStatesRepository,
    private readonly credentials: CredentialLoader,
    private readonly slices: SendSlicesService,
    private readonly settlement: SendSettlementService,
    private readonly metrics: SendingMetrics,
  ) {}

  /**
   * Resolves once every message of the batch is recorded (or held, or found handled already) and
   * its retries, dead letters and status events are on Kafka: the offset may then be committed.
   */
  async send(message: ConsumedMessage<MessageBatchV1>): Promise<void> {
    const batch = message.value;
    const endTimer = this.metrics.batchSeconds.startTimer({ lane: batch.lane });
    const ids = [...new Set(batch.items.map((item) => item.messageId))];
    if (batch.runId !== undefined && !(await this.runs.isRunning(batch.runId))) {
      // Paused or stopped: its messages stay PENDING (the expander publishes them again on resume).
      this.metrics.count(batch.lane, 'held', ids.length);
    } else {
      await this.sendUnsettled(message, ids);
    }
    // The expander's backpressure counts batches; a partial retry's batch was counted already.
    if (batch.runId !== undefined && message.headers[KafkaHeaders.partialRetry] === undefined) {
      await this.claims.finishBatch(batch.runId, batch.seq);
    }
    endTimer();
  }

  /**
   * A redelivered or re-published batch carries messages already settled: they take no tokens
   * (measured: after a broker restart, copies burned the whole credential rate while the messages
   * still PENDING waited behind them), and their status events are published again. SENDING ones go
   * on: a retry-tier copy can arrive before the attempt that published it has released its rows (the
   * claim's contended path retries them).
   */
  private async sendUnsettled(
    message: ConsumedMessage<MessageBatchV1>,
    ids: readonly string[],
  ): Promise<void> {
    const batch = message.value;
    const unsettled = new Set(await this.claims.unsettledAmong(ids));
    const settled = ids.filter((id) => !unsettled.has(id));
    if (settled.length > 0) {
      this.metrics.count(batch.lane, 'skipped', settled.length);
      await this.settlement.republishSettled(settled);
    }
    const toSend = ids.filter((id) => unsettled.has(id));
    if (toSend.length === 0) return;
    const loaded = await this.credentials.load(batch.credentialId);
    if (loaded.ok) await this.slices.sendUnderRateLimit(message, toSend, loaded.credential);
    // Nothing can be sent with it: every message takes the credential's failure (no tokens needed).
    else await this.slices.failWithoutSending(message, toSend, loaded.failure);
  }
}
