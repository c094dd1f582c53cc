import { Injectable } from '@nestjs/common';
import { type RunRequestedV1, RunRequestReason, Topics } from '@ums/contracts';
import { KafkaEventClient } from '@ums/platform';

export interface RunToRequest {
  readonly runId: string;
  readonly campaignId: string;
  readonly tenantId: string;
  readonly epoch: number;
}

/** Publishes run requests (acks=all) for the expanders, keyed by campaign, as Nest microservice events. */
@Injectable()
export class RunRequestPublisher {
  constructor(private readonly events: KafkaEventClient) {}

  async publish(runs: readonly RunToRequest[], reason: RunRequestReason): Promise<void> {
    const requestedAt = new Date().toISOString();
    const values: RunRequestedV1[] = runs.map((run) => ({
      runId: run.runId,
      campaignId: run.campaignId,
      tenantId: run.tenantId,
      leaseEpoch: run.epoch,
      reason,
      requestedAt,
    }));
    await this.events.emitTo(Topics.runRequested, values);
  }
}
