import { randomBytes } from 'node:crypto';
import { ConfigValidationError, loadConfig } from '../config/config-loader';
import { SecretBox, SecretUnreadableError } from './secret-box';
import { parseSecretKeys, type SecretKey } from './secret-keys';
import { SecretsConfig } from './secrets.config';

const key = (id: string): SecretKey => ({ id, key: randomBytes(32) });

/** The code of the SecretUnreadableError that `work` throws (fails the test if it throws none). */
function unreadableCode(work: () => unknown): string {
  try {
    work();
  } catch (error: unknown) {
    expect(error).toBeInstanceOf(SecretUnreadableError);
    return (error as SecretUnreadableError).code;
  }
  throw new Error('expected SecretUnreadableError, nothing was thrown');
}

/** Replaces field `index` of a sealed value. */
function withField(sealed: string, index: number, value: string): string {
  const parts = sealed.split(':');
  parts[index] = value;
  return parts.join(':');
}

function flipFirstByte(field: string): string {
  const bytes = Buffer.from(field, 'base64url');
  bytes[0] = (bytes[0] ?? 0) ^ 0x01;
  return bytes.toString('base64url');
}

describe('SecretBox', () => {
  const k1 = key('k1');
  const box = new SecretBox([k1]);

  it('round-trips text, including empty and non-ASCII text', () => {
    for (const plaintext of ['s3cret-token', '', 'pässwörd ✓ 🔑', 'x'.repeat(4096)]) {
      expect(box.open(box.seal(plaintext))).toBe(plaintext);
    }
  });

  it('seals to a versioned string that does not contain the plaintext', () => {
    const sealed = box.seal('EAAGm0PX4ZCpsBA-token');
    expect(sealed).toMatch(/^v1:k1:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{22}:[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('EAAGm0PX4ZCpsBA');
    expect(sealed).not.toContain(Buffer.from('EAAGm0PX4ZCpsBA-token').toString('base64url'));
  });

  it('uses a fresh nonce for every seal', () => {
    expect(box.seal('same')).not.toBe(box.seal('same'));
  });

  it('detects tampering with the ciphertext, the tag or the nonce', () => {
    const sealed = box.seal('top secret');
    expect(
      unreadableCode(() => box.open(withField(sealed, 4, flipFirstByte(sealed.split(':')[4] ?? '')))),
    ).toBe('SECRET_TAMPERED');
    expect(
      unreadableCode(() => box.open(withField(sealed, 3, flipFirstByte(sealed.split(':')[3] ?? '')))),
    ).toBe('SECRET_TAMPERED');
    expect(
      unreadableCode(() => box.open(withField(sealed, 2, flipFirstByte(sealed.split(':')[2] ?? '')))),
    ).toBe('SECRET_TAMPERED');
    // Truncated ciphertext.
    expect(
      unreadableCode(() => box.open(withField(sealed, 4, (sealed.split(':')[4] ?? '').slice(0, 4)))),
    ).toBe('SECRET_TAMPERED');
  });

  it('refuses a value relabelled to another key of the ring (the key id is authenticated)', () => {
    const k2 = key('k2');
    const ring = new SecretBox([k1, k2]);
    const sealed = ring.seal('secret');
    expect(unreadableCode(() => ring.open(withField(sealed, 1, 'k2')))).toBe('SECRET_TAMPERED');
  });

  it('refuses to open with a different key under the same id', () => {
    const sealed = box.seal('secret');
    const other = new SecretBox([key('k1')]);
    let message = '';
    try {
      other.open(sealed);
    } catch (error: unknown) {
      message = (error as Error).message;
      expect((error as SecretUnreadableError).code).toBe('SECRET_TAMPERED');
    }
    expect(message).toContain("'k1'");
    expect(message).not.toContain('secret');
  });

  it('refuses values sealed with a key that is not in the ring', () => {
    const sealed = new SecretBox([key('retired')]).seal('secret');
    expect(unreadableCode(() => box.open(sealed))).toBe('SECRET_KEY_UNKNOWN');
  });

  it('rotates: the new first key seals, older keys still open what they sealed', () => {
    const before = box.seal('old secret');
    const k2 = key('k2');
    const rotated = new SecretBox([k2, k1]);
    expect(rotated.currentKeyId).toBe('k2');
    expect(rotated.open(before)).toBe('old secret');
    expect(rotated.isSealedWithCurrentKey(before)).toBe(false);
    const after = rotated.seal('new secret');
    expect(after.startsWith('v1:k2:')).toBe(true);
    expect(rotated.isSealedWithCurrentKey(after)).toBe(true);
    // The old ring cannot read what the new key sealed.
    expect(unreadableCode(() => box.open(after))).toBe('SECRET_KEY_UNKNOWN');
  });

  it('refuses malformed input without echoing it', () => {
    const sealed = box.seal('secret');
    const malformed = [
      '',
      'plaintext-token',
      sealed.replace(/^v1:/, 'v2:'),
      `${sealed}:extra`,
      sealed.split(':').slice(0, 4).join(':'),
      withField(sealed, 1, ''),
      withField(sealed, 2, 'not base64!'),
      withField(sealed, 2, 'AAAA'), // nonce of the wrong length
      withField(sealed, 3, 'AAAA'), // tag of the wrong length
    ];
    for (const value of malformed) {
      expect({ value, code: unreadableCode(() => box.open(value)) }).toEqual({
        value,
        code: 'SECRET_MALFORMED',
      });
    }
    try {
      box.open('plaintext-token');
    } catch (error: unknown) {
      expect((error as Error).message).not.toContain('plaintext-token');
    }
  });

  it('refuses bad key rings at construction', () => {
    expect(() => new SecretBox([])).toThrow('at least one key');
    expect(() => new SecretBox([{ id: 'short', key: randomBytes(16) }])).toThrow('32 bytes');
    expect(() => new SecretBox([k1, { ...key('x'), id: 'k1' }])).toThrow('unique');
  });
});

describe('SECRETS_KEYS', () => {
  const b64 = (bytes: number): string => randomBytes(bytes).toString('base64');

  it('parses the current key first, then older ones (standard or URL-safe base64)', () => {
    const urlSafe = randomBytes(32).toString('base64url');
    const parsed = parseSecretKeys(` k2:${b64(32)} , k1:${urlSafe}`);
    expect('keys' in parsed && parsed.keys.map((k) => k.id)).toEqual(['k2', 'k1']);
    expect('keys' in parsed && parsed.keys[1]?.key.equals(Buffer.from(urlSafe, 'base64url'))).toBe(true);
  });

  it.each([
    ['an empty list', '', 'at least one'],
    ['an entry without id', 'k1', 'entry 1 must be <keyId>:<base64 key>'],
    ['a bad key id', `bad id:${b64(32)}`, 'key id must be'],
    ['a short key', `k1:${b64(16)}`, "entry 1 (key 'k1'): key must be 32 bytes, got 16"],
    ['a key that is not base64', `k1:${b64(32)},k2:not*base64`, "entry 2 (key 'k2'): key is not base64"],
    ['a repeated key id', `k1:${b64(32)},k1:${b64(32)}`, "key id 'k1' is listed twice"],
  ])('refuses %s', (_label, raw, reason) => {
    const parsed = parseSecretKeys(raw);
    expect('error' in parsed && parsed.error).toContain(reason);
  });

  it('is required and validated at start-up, the error naming SECRETS_KEYS but not the key', () => {
    expect(() => loadConfig(SecretsConfig, {})).toThrow(/SECRETS_KEYS: SECRETS_KEYS is required/);
    const short = b64(16);
    let error: unknown;
    try {
      loadConfig(SecretsConfig, { SECRETS_KEYS: `dev:${short}` });
    } catch (e: unknown) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigValidationError);
    const message = (error as Error).message;
    expect(message).toContain("SECRETS_KEYS: entry 1 (key 'dev'): key must be 32 bytes, got 16");
    expect(message).not.toContain(short);
  });

  it('builds a working SecretBox from a valid configuration', () => {
    const config = loadConfig(SecretsConfig, { SECRETS_KEYS: `new:${b64(32)},old:${b64(32)}` });
    const box = new SecretBox(config.keys());
    expect(box.currentKeyId).toBe('new');
    expect(box.open(box.seal('token'))).toBe('token');
  });
});
