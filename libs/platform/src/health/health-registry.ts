import { Injectable } from '@nestjs/common';

export interface HealthCheckResult {
  readonly ok: boolean;
  readonly detail?: string;
}

export type HealthCheck = () => Promise<HealthCheckResult> | HealthCheckResult;

const CHECK_TIMEOUT_MS = 2_000;

/**
 * Readiness is the conjunction of what each infrastructure module registers here
 * (Kafka producer connected, consumers running and not stalled, MySQL and Redis answering).
 */
@Injectable()
export class HealthRegistry {
  private readonly checks = new Map<string, HealthCheck>();

  register(name: string, check: HealthCheck): void {
    if (this.checks.has(name)) throw new Error(`Health check "${name}" is registered twice`);
    this.checks.set(name, check);
  }

  async evaluate(): Promise<{ ok: boolean; checks: Record<string, HealthCheckResult> }> {
    const entries = await Promise.all(
      [...this.checks.entries()].map(async ([name, check]) => [name, await runWithTimeout(check)] as const),
    );
    const checks = Object.fromEntries(entries);
    return { ok: entries.every(([, r]) => r.ok), checks };
  }
}

async function runWithTimeout(check: HealthCheck): Promise<HealthCheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<HealthCheckResult>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, detail: `no answer within ${CHECK_TIMEOUT_MS} ms` }),
      CHECK_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([Promise.resolve().then(check), timeout]);
  } catch (error: unknown) {
    return { ok: false, detail: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}
