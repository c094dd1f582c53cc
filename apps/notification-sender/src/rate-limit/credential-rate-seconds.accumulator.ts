import type { OutcomeCounts, RateCredential } from './rate-limit.repository';

/** One credential's figures for one UTC second, as this process saw them (a `credential_rate_seconds` row). */
export interface CredentialSecond {
  readonly credentialId: string;
  readonly tenantId: string;
  /** Start of the UTC second, in ms since the epoch. */
  readonly secondMs: number;
  /**
   * The AIMD rate the second ended at, as this process last saw it; 0 when it had seen none yet (a
   * credential's rate is positive, so 0 is never a real one).
   */
  readonly rate: number;
  readonly granted: number;
  readonly accepted: number;
  readonly congested: number;
  readonly errors5xx: number;
  readonly timeouts: number;
  readonly decreases: number;
}

export interface CredentialRateSecondsOptions {
  /** Seconds kept unwritten at most (MySQL unreachable); beyond, the oldest are dropped. */
  readonly maxSeconds: number;
  /** Hears how many rows (credential, second) were dropped. */
  readonly onDropped: (rows: number) => void;
  /** The clock (ms since the epoch); Date.now unless a test gives its own. */
  readonly now?: () => number;
}

type Counts = Omit<CredentialSecond, 'credentialId' | 'tenantId' | 'secondMs' | 'rate'>;
type MutableSecond = { -readonly [K in keyof CredentialSecond]: CredentialSecond[K] };

/** Credentials whose last rate is remembered; beyond, the memory starts over (as for stateSeenAt). */
const MAX_REMEMBERED_RATES = 10_000;

/**
 * What the rate limiter did per credential and per UTC second, accumulated in memory between two
 * flushes: tokens granted, the provider's answers reported, the rate the second ended at and the AIMD
 * decreases this process applied. Recording is synchronous and never waits (it is on the sending
 * path); a flusher takes the complete seconds and writes them, and puts them back when it could not.
 * At most `maxSeconds` distinct seconds are held: past that the oldest are dropped and counted.
 */
export class CredentialRateSecondsAccumulator {
  /** Second (ms) -> credential id -> its figures. */
  private readonly seconds = new Map<number, Map<string, MutableSecond>>();
  /** Each credential's last rate seen, the starting rate of its next second. */
  private readonly lastRate = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly options: CredentialRateSecondsOptions) {
    if (!Number.isInteger(options.maxSeconds) || options.maxSeconds < 1) {
      throw new RangeError('maxSeconds must be a positive integer');
    }
    this.now = options.now ?? Date.now;
  }

  /** An acquire's grant (0 tokens too: the rate it answered is still the credential's). */
  granted(credential: RateCredential, tokens: number, rate: number): void {
    const second = this.entry(credential);
    second.granted += tokens;
    this.noteRate(second, rate);
  }

  /** Provider outcomes reported for the credential's AIMD window. */
  reported(credential: RateCredential, outcome: OutcomeCounts): void {
    const second = this.entry(credential);
    second.accepted += outcome.accepted;
    second.congested += outcome.congested;
    second.errors5xx += outcome.errors5xx;
    second.timeouts += outcome.timeouts;
  }

  /** The credential's rate as Redis holds it: read by a report, or set by an AIMD step this process applied. */
  rate(credential: RateCredential, rate: number, decreased = false): void {
    const second = this.entry(credential);
    if (decreased) second.decreases += 1;
    this.noteRate(second, rate);
  }

  /** Distinct seconds held. */
  get pendingSeconds(): number {
    return this.seconds.size;
  }

  /**
   * Removes and returns the seconds already over (every second held when `all`, at shutdown), ordered
   * by credential and second: concurrent upserts of several replicas then lock rows in one order.
   */
  take(all = false): CredentialSecond[] {
    const current = secondOf(this.now());
    const taken: CredentialSecond[] = [];
    for (const [secondMs, credentials] of this.seconds) {
      if (!all && secondMs >= current) continue;
      this.seconds.delete(secondMs);
      taken.push(...credentials.values());
    }
    return taken.sort(
      (a, b) =>
        (a.credentialId < b.credentialId ? -1 : a.credentialId > b.credentialId ? 1 : 0) ||
        a.secondMs - b.secondMs,
    );
  }

  /**
   * Puts back rows a flush could not write: their counts are added to any recorded for the same
   * second since, whose rate (newer) is kept. The bound then applies as for new seconds.
   */
  putBack(rows: readonly CredentialSecond[]): void {
    for (const row of rows) {
      const credentials = this.secondMap(row.secondMs);
      const held = credentials.get(row.credentialId);
      if (held === undefined) {
        credentials.set(row.credentialId, { ...row });
        continue;
      }
      addCounts(held, row);
      if (held.rate === 0) held.rate = row.rate;
    }
    this.enforceBound();
  }

  private entry(credential: RateCredential): MutableSecond {
    const secondMs = secondOf(this.now());
    const isNewSecond = !this.seconds.has(secondMs);
    const credentials = this.secondMap(secondMs);
    let second = credentials.get(credential.credentialId);
    if (second === undefined) {
      second = {
        credentialId: credential.credentialId,
        tenantId: credential.tenantId,
        secondMs,
        rate: this.lastRate.get(credential.credentialId) ?? 0,
        ...zeroCounts(),
      };
      credentials.set(credential.credentialId, second);
    }
    if (isNewSecond) this.enforceBound();
    return second;
  }

  private secondMap(secondMs: number): Map<string, MutableSecond> {
    let credentials = this.seconds.get(secondMs);
    if (credentials === undefined) {
      credentials = new Map();
      this.seconds.set(secondMs, credentials);
    }
    return credentials;
  }

  private noteRate(second: MutableSecond, rate: number): void {
    if (!Number.isFinite(rate) || rate <= 0) return;
    second.rate = rate;
    const id = second.credentialId;
    if (this.lastRate.size >= MAX_REMEMBERED_RATES && !this.lastRate.has(id)) this.lastRate.clear();
    this.lastRate.set(id, rate);
  }

  /** Drops the oldest seconds beyond maxSeconds (the newest, being recorded, is never one of them). */
  private enforceBound(): void {
    while (this.seconds.size > this.options.maxSeconds) {
      let oldest = Number.POSITIVE_INFINITY;
      for (const secondMs of this.seconds.keys()) oldest = Math.min(oldest, secondMs);
      const rows = this.seconds.get(oldest)?.size ?? 0;
      this.seconds.delete(oldest);
      if (rows > 0) this.options.onDropped(rows);
    }
  }
}

/** Start of the UTC second of a time in ms. */
export function secondOf(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

function zeroCounts(): Counts {
  return { granted: 0, accepted: 0, congested: 0, errors5xx: 0, timeouts: 0, decreases: 0 };
}

function addCounts(into: MutableSecond, from: Counts): void {
  into.granted += from.granted;
  into.accepted += from.accepted;
  into.congested += from.congested;
  into.errors5xx += from.errors5xx;
  into.timeouts += from.timeouts;
  into.decreases += from.decreases;
}
