export interface OutputStream {
  write(chunk: string): unknown;
  readonly isTTY?: boolean;
}

/** How progress shows: redrawn in place on a terminal, as throttled lines in a log, or not at all (--json). */
export type ProgressMode = 'tty' | 'lines' | 'off';

export function progressMode(stream: OutputStream, json: boolean): ProgressMode {
  if (json) return 'off';
  return stream.isTTY === true ? 'tty' : 'lines';
}

/**
 * One progress line on stderr (stdout stays for results). On a terminal the line is redrawn in
 * place; otherwise a line is written when it changed and at most every `minIntervalMs`.
 */
export class ProgressReporter {
  private lastLine: string | undefined;
  private lastWrittenAt = 0;
  private drawn = false;

  constructor(
    private readonly stream: OutputStream,
    private readonly mode: ProgressMode,
    private readonly now: () => number = Date.now,
    private readonly minIntervalMs = 2_000,
  ) {}

  update(line: string): void {
    if (this.mode === 'off' || line === this.lastLine) return;
    if (this.mode === 'tty') {
      this.stream.write(`\r\x1b[2K${line}`);
      this.drawn = true;
      this.lastLine = line;
      return;
    }
    const at = this.now();
    if (this.lastLine !== undefined && at - this.lastWrittenAt < this.minIntervalMs) return;
    this.stream.write(`${line}\n`);
    this.lastLine = line;
    this.lastWrittenAt = at;
  }

  /**
   * A line that stays (a run's state change): written at once in every mode but off, above the
   * progress line on a terminal, which is drawn again under it.
   */
  line(text: string): void {
    if (this.mode === 'off') return;
    if (this.mode === 'tty') {
      this.stream.write(`\r\x1b[2K${text}\n`);
      if (this.drawn && this.lastLine !== undefined) this.stream.write(this.lastLine);
      return;
    }
    this.stream.write(`${text}\n`);
  }

  /** Draws the final state (always, in line mode too) and ends the line. */
  finish(line?: string): void {
    if (this.mode === 'off') return;
    if (this.mode === 'tty') {
      if (line !== undefined) this.stream.write(`\r\x1b[2K${line}`);
      if (this.drawn || line !== undefined) this.stream.write('\n');
      this.drawn = false;
      return;
    }
    if (line !== undefined && line !== this.lastLine) this.stream.write(`${line}\n`);
    this.lastLine = line;
  }
}
