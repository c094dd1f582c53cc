export interface InFlightBytesOptions {
  /** Request body bytes all requests sharing this budget may hold at once. */
  readonly limitBytes: number;
  /** Called for each request refused because the budget was spent (for a metric). */
  readonly onRefused?: () => void;
}

/**
 * A process-wide budget of request body bytes held in memory, shared by the fast routes given it:
 * a request takes its declared length before its body is read (or each chunk as it comes, when no
 * length is declared) and gives it back once its handler is done; one that does not fit is refused
 * (503 with Retry-After) instead of being buffered.
 */
export class InFlightBytes {
  private used = 0;

  constructor(private readonly options: InFlightBytesOptions) {
    if (!Number.isSafeInteger(options.limitBytes) || options.limitBytes <= 0) {
      throw new RangeError(`in-flight byte limit ${options.limitBytes}`);
    }
  }

  get limitBytes(): number {
    return this.options.limitBytes;
  }

  get inUse(): number {
    return this.used;
  }

  /** Takes `bytes` if they fit, else counts a refusal and takes nothing. */
  tryTake(bytes: number): boolean {
    if (this.used + bytes > this.options.limitBytes) {
      this.options.onRefused?.();
      return false;
    }
    this.used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}
