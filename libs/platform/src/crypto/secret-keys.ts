/** One AES-256 key of the key ring, named by the id that sealed values carry. */
export interface SecretKey {
  readonly id: string;
  readonly key: Buffer;
}

export const SECRET_KEY_BYTES = 32;

// The id appears in every sealed value, whose fields are separated by ':'.
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
// Standard or URL-safe base64; Buffer.from would silently skip anything else.
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/**
 * Parses `SECRETS_KEYS` (`<keyId>:<base64 of 32 bytes>`, comma-separated, current key first).
 * Returns the keys, or a reason naming the offending entry by position and id, never its bytes.
 */
export function parseSecretKeys(raw: string): { keys: SecretKey[] } | { error: string } {
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) return { error: 'must list at least one <keyId>:<base64 key>' };
  const keys: SecretKey[] = [];
  for (const [index, entry] of entries.entries()) {
    const position = `entry ${index + 1}`;
    const colon = entry.indexOf(':');
    if (colon < 0) return { error: `${position} must be <keyId>:<base64 key>` };
    const id = entry.slice(0, colon);
    const encoded = entry.slice(colon + 1);
    if (!KEY_ID.test(id)) return { error: `${position}: key id must be 1-32 of A-Z, a-z, 0-9, _ and -` };
    if (keys.some((key) => key.id === id)) return { error: `${position}: key id '${id}' is listed twice` };
    if (!BASE64.test(encoded)) return { error: `${position} (key '${id}'): key is not base64` };
    const key = Buffer.from(encoded, 'base64');
    if (key.length !== SECRET_KEY_BYTES) {
      return {
        error: `${position} (key '${id}'): key must be ${SECRET_KEY_BYTES} bytes, got ${key.length} (generate one with: openssl rand -base64 32)`,
      };
    }
    keys.push({ id, key });
  }
  return { keys };
}
