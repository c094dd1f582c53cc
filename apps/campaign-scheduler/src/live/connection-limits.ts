/** Why a live connection was refused: the process serves its most, or the principal holds its most. */
export type LimitRefusal = 'process' | 'principal';

/** One live connection counted against the limits until released (releasing twice counts once). */
export interface ConnectionLease {
  release(): void;
}

export type LeaseAnswer =
  | { readonly ok: true; readonly lease: ConnectionLease }
  | { readonly ok: false; readonly refusal: LimitRefusal };

/**
 * Counts the live connections of one process, in all and per principal, against their limits. A
 * connection takes a lease when it opens and releases it once, however it ends.
 */
export class ConnectionLimits {
  private total = 0;
  private readonly byPrincipal = new Map<string, number>();

  constructor(
    private readonly maxTotal: number,
    private readonly maxPerPrincipal: number,
  ) {}

  /** A lease for one more connection of `principal`, or why it may not have one. */
  acquire(principal: string): LeaseAnswer {
    const held = this.byPrincipal.get(principal) ?? 0;
    if (this.total >= this.maxTotal) return { ok: false, refusal: 'process' };
    if (held >= this.maxPerPrincipal) return { ok: false, refusal: 'principal' };
    this.total += 1;
    this.byPrincipal.set(principal, held + 1);
    let released = false;
    return {
      ok: true,
      lease: {
        release: () => {
          if (released) return;
          released = true;
          this.total -= 1;
          const left = (this.byPrincipal.get(principal) ?? 1) - 1;
          if (left === 0) this.byPrincipal.delete(principal);
          else this.byPrincipal.set(principal, left);
        },
      },
    };
  }

  /** Connections open in the process. */
  get open(): number {
    return this.total;
  }

  /** Connections open for `principal`. */
  openFor(principal: string): number {
    return this.byPrincipal.get(principal) ?? 0;
  }
}
