/** A cached answer for one token: its principal (with the key's expiry) or the refusal to repeat. */
export interface CacheEntry<T> {
  readonly value: T;
  readonly until: number;
}

/**
 * A small time-bounded map keyed by the presented token (in memory only, never logged), so that a key
 * is hashed and read once per replica and period rather than per request. The oldest entry goes when
 * it is full (Map keeps insertion order).
 */
export class PrincipalCache<T> {
  private readonly entries = new Map<string, CacheEntry<T>>();

  constructor(private readonly maxEntries: number) {}

  get(token: string, now: number): T | undefined {
    const entry = this.entries.get(token);
    if (entry === undefined) return undefined;
    if (entry.until <= now) {
      this.entries.delete(token);
      return undefined;
    }
    return entry.value;
  }

  set(token: string, value: T, until: number): void {
    if (until <= 0) return;
    this.entries.delete(token);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    this.entries.set(token, { value, until });
  }

  clear(): void {
    this.entries.clear();
  }
}
