/** Options of a GrantLead. */
export interface GrantLeadOptions {
  /** How many recent delays the quantile is taken over. */
  readonly samples: number;
  /** 0..1: the share of slices that should be ready by their first slot. */
  readonly quantile: number;
  /** The longest lead, in ms. */
  readonly maxMs: number;
  /**
   * How fast the lead may fall, in ms per ms. Every slot moves with the lead, so a falling lead
   * brings the slots it passes over closer together: at most rate / (1 - fallPerMs) for a while.
   */
  readonly fallPerMs: number;
}

/**
 * How far after a grant its slots should start, so that the grant's messages are claimed and rendered
 * by then: a high quantile of how long that recently took (from the grant's decision to ready to
 * send). Every slot of a grant is moved by the same lead, so the spacing Redis gave them, and with it
 * the rate the provider sees, is kept; only a falling lead packs slots closer, and it falls slowly.
 * Without a lead, a slice whose claim took longer than its first slot's offset starts late, and its
 * tokens are given back and taken again.
 */
export class GrantLead {
  private readonly delays: number[] = [];
  private next = 0;
  private lead = 0;
  private leadAtMs: number | undefined;

  constructor(private readonly options: GrantLeadOptions) {}

  /** A slice was ready to send `delayMs` after its grant was decided. */
  observe(delayMs: number): void {
    const delay = Math.max(0, delayMs);
    if (this.delays.length < this.options.samples) this.delays.push(delay);
    else this.delays[this.next] = delay;
    this.next = (this.next + 1) % this.options.samples;
  }

  /** The lead, in ms, for a grant decided at `nowMs` (a monotonic clock). */
  leadAt(nowMs: number): number {
    const target = quantileOf(this.delays, this.options.quantile);
    const falling =
      this.leadAtMs === undefined
        ? 0
        : this.lead - this.options.fallPerMs * Math.max(0, nowMs - this.leadAtMs);
    this.lead = Math.min(this.options.maxMs, Math.max(target, falling));
    this.leadAtMs = nowMs;
    return this.lead;
  }
}

/** The `q` quantile (nearest rank) of `values`; 0 for none. */
function quantileOf(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
}
