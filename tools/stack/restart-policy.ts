/**
 * How the local stack restarts a service that died, as Kubernetes restarts a crashed container:
 * after a delay that doubles with each restart in a row (1 s, 2 s, 4 s, ... at most 30 s), back to
 * the first delay once the process has stayed up for a minute.
 */
export interface RestartPolicy {
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  /** A process up this long has recovered: its next restart waits the first delay again. */
  readonly resetAfterMs: number;
}

export const RESTART_POLICY: RestartPolicy = {
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  resetAfterMs: 60_000,
};

/** A process's end: its exit code, or the signal that ended it. */
export interface ExitStatus {
  readonly code: number | null;
  readonly signal: string | null;
}

/** Whether the stack restarts a process that ended so: not after a clean exit (a drain it was asked for). */
export function crashed(exit: ExitStatus): boolean {
  return exit.code !== 0 || exit.signal !== null;
}

/** Counts restarts in a row and says how long to wait before the next one. */
export class RestartBackoff {
  private inARow = 0;

  constructor(private readonly policy: RestartPolicy = RESTART_POLICY) {}

  /** The number of this restart (1 = first in a row) and its delay, for a process that ran `uptimeMs`. */
  next(uptimeMs: number): { restart: number; delayMs: number } {
    if (uptimeMs >= this.policy.resetAfterMs) this.inARow = 0;
    this.inARow += 1;
    const delayMs = Math.min(this.policy.maxDelayMs, this.policy.initialDelayMs * 2 ** (this.inARow - 1));
    return { restart: this.inARow, delayMs };
  }
}

/** The line the stack prints when it restarts a service: name, how it ended, restart count and delay. */
export function restartLine(
  label: string,
  exit: ExitStatus,
  step: { restart: number; delayMs: number; total: number },
): string {
  const how = exit.signal !== null ? `signal ${exit.signal}` : `exit code ${String(exit.code)}`;
  return (
    `${label} died (${how}): restarting in ${step.delayMs / 1000} s ` +
    `(restart ${step.total}, ${step.restart} in a row)`
  );
}
