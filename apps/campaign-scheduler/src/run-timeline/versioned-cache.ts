/**
 * A small least-recently-used cache of one value per key, each stored with the version it was made
 * from: a read with another version misses (and a write replaces the key's entry, whatever its
 * version), so a changed source never answers from the cache and never holds two places.
 */
export class VersionedCache<V> {
  private readonly entries = new Map<string, { readonly version: string; readonly value: V }>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string, version: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || entry.version !== version) return undefined;
    // Map keeps insertion order: re-inserting makes the entry the most recently used.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, version: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { version, value });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.capacity) break;
      this.entries.delete(oldest);
    }
  }
}
