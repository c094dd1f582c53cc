/** CRC16-CCITT (XMODEM) table, as Redis Cluster uses to place keys. */
const TABLE = Array.from({ length: 256 }, (_, byte) => {
  let crc = byte << 8;
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  return crc;
});

/**
 * The Redis Cluster hash slot of a key (0-16383): of its hash tag, the part between the first `{`
 * and the next `}` when that is not empty, else of the whole key. Keys one script or MULTI touches
 * must share a slot, so they share a tag.
 */
export function hashSlot(key: string): number {
  const open = key.indexOf('{');
  let hashed = key;
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) hashed = key.slice(open + 1, close);
  }
  let crc = 0;
  for (const byte of Buffer.from(hashed, 'utf8'))
    crc = ((crc << 8) & 0xffff) ^ (TABLE[((crc >> 8) ^ byte) & 0xff] ?? 0);
  return crc & 0x3fff;
}

/**
 * `{tag}` for a key part, so that keys built with the same tag land in one slot. A tag is
 * everything up to the first `}`, so a `}` in the value is replaced (the tag only places the key).
 */
export function hashTag(value: string): string {
  return `{${value.replace(/}/g, '_')}}`;
}

/**
 * Splits keys into groups that one pipeline may carry: all of them on one server, one group per
 * hash slot on a cluster (a cluster pipeline's keys must live on one node).
 */
export function groupByHashSlot<K extends string>(keys: readonly K[], cluster: boolean): K[][] {
  if (!cluster) return keys.length === 0 ? [] : [[...keys]];
  const groups = new Map<number, K[]>();
  for (const key of keys) {
    const slot = hashSlot(key);
    const group = groups.get(slot);
    if (group === undefined) groups.set(slot, [key]);
    else group.push(key);
  }
  return [...groups.values()];
}
