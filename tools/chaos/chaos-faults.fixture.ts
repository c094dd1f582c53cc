import { Topics } from '@ums/contracts';
import { waitUntil } from '@ums/testing';
import { Partitioners } from 'kafkajs';
import type { ChaosService, ChaosStack } from './chaos-stack.fixture';

/** One fault as it happened: how long it lasted and how long the pipeline took to get over it. */
export interface FaultRecord {
  readonly fault: string;
  /** Share of the recipients settled when it began. */
  readonly atPercent: number;
  /** From the fault's start until it was lifted (the process or server back, the proxy restored). */
  readonly downMs: number;
  /** From the fault lifted until every service answered ready (undefined: not within the limit). */
  readonly readyMs: number | undefined;
  /** From the fault lifted until sending moved on: more messages settled, or all (undefined: not within the limit). */
  readonly progressMs: number | undefined;
  /** From the fault lifted until the subscriber accepted more status events (undefined: not within the limit). */
  readonly relayMs: number | undefined;
  readonly detail?: string;
}

export interface FaultInjectorOptions {
  readonly stack: ChaosStack;
  /** Messages of the run settled now (SENT, DELIVERED, READ, FAILED or UNKNOWN). */
  readonly settled: () => Promise<number>;
  /** Status events the subscriber has accepted. */
  readonly relayed: () => number;
  readonly recipients: number;
  readonly campaignId: string;
}

/** How long a fault's recovery is waited for before it is reported as not recovered. */
const RECOVERY_LIMIT_MS = 120_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Injects the faults of the chaos test one at a time and measures each one's recovery. A service
 * that exits by itself meanwhile is a finding: noted in `crashes`, and started again as an
 * orchestrator would.
 */
export class FaultInjector {
  readonly records: FaultRecord[] = [];
  readonly crashes: string[] = [];
  readonly kills: Record<string, number> = {};

  constructor(private readonly options: FaultInjectorOptions) {}

  /** SIGKILL, then a start after up to 1.5 s, as an orchestrator restarting a crashed pod. */
  async killService(name: ChaosService): Promise<void> {
    const service = this.options.stack.service(name);
    await this.inject(`SIGKILL ${name}`, async () => {
      await service.process.kill();
      this.kills[name] = (this.kills[name] ?? 0) + 1;
      await sleep(Math.random() * 1_500);
      await service.restart();
      return undefined;
    });
  }

  /**
   * SIGKILLs the Kafka node that leads the campaign's partition of the batches topic, keeps it down
   * (the partition fails over to an in-sync copy), then starts it again and waits until every copy
   * of every topic is back in sync.
   */
  async killPartitionLeader(downMs: number): Promise<void> {
    const { stack, campaignId } = this.options;
    const topic = stack.names.topic(Topics.batches.name);
    const partitions = await stack.cluster.partitionsOf(topic);
    const partition = Partitioners.DefaultPartitioner()({
      topic,
      message: { key: campaignId, value: null },
      partitionMetadata: partitions.map((p) => ({
        partitionId: p.partition,
        leader: p.leader,
        partitionErrorCode: 0,
        replicas: [...p.replicas],
        isr: [...p.isr],
      })),
    });
    const leader = await stack.cluster.leaderOf(topic, partition);
    let failoverMs = -1;
    let inSyncMs = -1;
    await this.inject(`kill Kafka node ${leader.id} (leader of batches[${partition}])`, async () => {
      const killed = Date.now();
      await leader.kill();
      await waitUntil(
        'a new leader',
        async () => (await stack.cluster.leaderOf(topic, partition).catch(() => leader)).id !== leader.id,
        { timeoutMs: 60_000, intervalMs: 250 },
      ).catch(() => undefined);
      failoverMs = Date.now() - killed;
      await sleep(Math.max(0, downMs - failoverMs));
      await leader.restart();
      const restarted = Date.now();
      await waitUntil(
        'every copy in sync',
        async () => (await stack.cluster.underReplicated(stack.topics())) === 0,
        {
          timeoutMs: RECOVERY_LIMIT_MS,
          intervalMs: 500,
        },
      ).catch(() => undefined);
      inSyncMs = Date.now() - restarted;
      return `failover ${seconds(failoverMs)}, replicas in sync ${seconds(inSyncMs)} after the restart`;
    });
  }

  /** Stops the test's mariadbd (a graceful shutdown), keeps it down, starts it again. */
  async restartMariadb(downMs: number): Promise<void> {
    const { mariadb } = this.options.stack.infra;
    await this.inject('restart MariaDB', async () => {
      await mariadb.stop();
      await sleep(downMs);
      await mariadb.start();
      return undefined;
    });
  }

  /** Stops the test's redis-server, keeps it down, starts it again empty (nothing is persisted). */
  async restartRedis(downMs: number): Promise<void> {
    const { redis } = this.options.stack.infra;
    await this.inject('restart Redis (back empty)', async () => {
      await redis.stop();
      await sleep(downMs);
      await redis.start();
      return undefined;
    });
  }

  /** Drops the cut-off service's MySQL connections through the proxy and refuses new ones for a while. */
  async cutMysql(service: ChaosService, forMs: number): Promise<void> {
    const { proxy } = this.options.stack.infra;
    await this.inject(`cut ${service} off MySQL`, async () => {
      const refusedBefore = proxy.refused;
      proxy.cut();
      await sleep(forMs);
      proxy.restore();
      return `${proxy.refused - refusedBefore} connections refused meanwhile`;
    });
  }

  /** Restarts any service that died by itself, noting it. */
  async restartCrashed(): Promise<void> {
    for (const [name, service] of this.options.stack.services) {
      const reason = service.process.exitedUnexpectedly();
      if (reason === undefined) continue;
      this.crashes.push(`${name}: ${reason}`);
      await service
        .restart()
        .catch((error: unknown) => this.crashes.push(`${name} restart: ${String(error)}`));
    }
  }

  private async inject(fault: string, apply: () => Promise<string | undefined>): Promise<void> {
    const { settled, relayed, recipients } = this.options;
    const atPercent = Math.round((100 * (await settled().catch(() => 0))) / recipients);
    const started = Date.now();
    const detail = await apply();
    const lifted = Date.now();
    const [settledBefore, relayedBefore] = [await settled().catch(() => 0), relayed()];
    const readyMs = await this.within(async () => {
      await this.restartCrashed();
      return (await this.options.stack.notReady()).length === 0;
    }, lifted);
    const progressMs = await this.within(async () => {
      const now = await settled();
      return now > settledBefore || now >= recipients;
    }, lifted);
    const relayMs = await this.within(() => Promise.resolve(relayed() > relayedBefore), lifted);
    const record = { fault, atPercent, downMs: lifted - started, readyMs, progressMs, relayMs, detail };
    this.records.push(record);
    process.stdout.write(`chaos fault: ${describeFault(record)}\n`);
  }

  /** Milliseconds from `since` until probe holds, or undefined when it does not within the limit. */
  private async within(probe: () => Promise<boolean>, since: number): Promise<number | undefined> {
    try {
      await waitUntil('recovery', probe, { timeoutMs: RECOVERY_LIMIT_MS, intervalMs: 250 });
      return Date.now() - since;
    } catch {
      return undefined;
    }
  }
}

export function describeFault(record: FaultRecord): string {
  const recovered = (ms: number | undefined): string => (ms === undefined ? 'NOT RECOVERED' : seconds(ms));
  return (
    `${record.fault} @${record.atPercent}%: down ${seconds(record.downMs)}, all ready after ` +
    `${recovered(record.readyMs)}, sending on after ${recovered(record.progressMs)}, relaying on after ` +
    `${recovered(record.relayMs)}` +
    (record.detail === undefined ? '' : ` (${record.detail})`)
  );
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
