import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, closeSync, fstatSync, mkdirSync, openSync, readSync } from 'node:fs';
import { dirname } from 'node:path';

export interface ManagedProcessOptions {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
  /** stdout and stderr are appended here (kept for post-mortems of failed tests). */
  readonly logFile: string;
  /** Outlive this process (the dev stack's `--keep`); otherwise it is killed when this process exits. */
  readonly detached?: boolean;
}

/**
 * A child process that tests and the dev stack can start, SIGKILL at any instant, stop
 * gracefully and start again with the same command.
 */
export class ManagedProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<number | null> = Promise.resolve(null);
  private expectingExit = false;
  kills = 0;

  constructor(private readonly options: ManagedProcessOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  start(): this {
    if (this.running) throw new Error(`${this.options.name} is already running`);
    this.expectingExit = false;
    mkdirSync(dirname(this.options.logFile), { recursive: true });
    appendFileSync(
      this.options.logFile,
      `\n--- start ${new Date().toISOString()} ${this.options.command} ${this.options.args.join(' ')}\n`,
    );
    // The child writes to the file itself (no pipe through us), so it keeps logging if we exit first.
    const log = openSync(this.options.logFile, 'a');
    const child = spawn(this.options.command, [...this.options.args], {
      cwd: this.options.cwd,
      env: { ...process.env, ...this.options.env },
      stdio: ['ignore', log, log],
      detached: this.options.detached === true,
    });
    closeSync(log);
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    this.child = child;
    if (this.options.detached === true) {
      child.unref();
    } else {
      liveChildren.add(child);
      child.once('exit', () => liveChildren.delete(child));
    }
    return this;
  }

  /** SIGKILL: no shutdown hooks run, exactly like a crashed pod. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.kills++;
    this.expectingExit = true;
    this.child?.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM and wait for a graceful exit; SIGKILL after `timeoutMs`. Returns the exit code. */
  async stop(timeoutMs = 20_000): Promise<number | null> {
    if (!this.running) return this.child?.exitCode ?? null;
    this.expectingExit = true;
    this.child?.kill('SIGTERM');
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), timeoutMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** How the last start ended (its exit code, or the signal that ended it); undefined while it runs. */
  get exitStatus(): { readonly code: number | null; readonly signal: NodeJS.Signals | null } | undefined {
    if (this.child === undefined || this.running) return undefined;
    return { code: this.child.exitCode, signal: this.child.signalCode };
  }

  /** Whether the last exit was asked for (stop() or kill()) rather than the process dying on its own. */
  get exitWasExpected(): boolean {
    return this.expectingExit;
  }

  /** For waitUntil's abortIf: a reason when the process died on its own. */
  readonly exitedUnexpectedly = (): string | undefined =>
    this.child !== undefined && !this.running && !this.expectingExit
      ? `${this.options.name} exited (code ${String(this.child.exitCode)}, signal ${String(this.child.signalCode)}); see ${this.options.logFile}, which ends:\n${logTail(this.options.logFile)}`
      : undefined;

  /** Resolves with the exit code when the process ends by itself. */
  waitForExit(): Promise<number | null> {
    return this.exited;
  }
}

const liveChildren = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of liveChildren) child.kill('SIGKILL');
});

/** The last lines of a log (at most 3 KB, each cut to 500 characters): why a process died, in the test's failure. */
export function logTail(file: string, bytes = 3_072): string {
  try {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      const buffer = Buffer.alloc(Math.min(bytes, size));
      readSync(fd, buffer, 0, buffer.length, size - buffer.length);
      return buffer
        .toString('utf8')
        .split('\n')
        .slice(size > bytes ? 1 : 0)
        .filter((line) => line.trim() !== '')
        .slice(-8)
        .map((line) => `  ${line.length > 500 ? `${line.slice(0, 500)}...` : line}`)
        .join('\n');
    } finally {
      closeSync(fd);
    }
  } catch (error: unknown) {
    return `  (log unreadable: ${error instanceof Error ? error.message : String(error)})`;
  }
}
