import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { SecretErrorCode } from '@ums/contracts';
import { CodedError } from '../errors/coded-error';
import { SECRET_KEY_BYTES, type SecretKey } from './secret-keys';

const VERSION = 'v1';
const ALGORITHM = 'aes-256-gcm';
// 96-bit random nonces, the size GCM is specified for; a fresh one for every seal.
const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** A sealed value could not be opened: malformed, sealed with a key we no longer have, or altered. */
export class SecretUnreadableError extends CodedError {
  constructor(code: Exclude<SecretErrorCode, SecretErrorCode.Invalid>, message: string) {
    super(code, message);
  }
}

/**
 * Authenticated encryption of small secrets (provider tokens, passwords) for storage at rest:
 * AES-256-GCM, sealed as `v1:<keyId>:<iv>:<tag>:<ciphertext>` (base64url fields).
 *
 * Rotation: the first key seals; every listed key opens, so older keys stay listed until all
 * values sealed with them have been re-sealed (see `isSealedWithCurrentKey`). The version and
 * key id are authenticated too, so a value cannot be relabelled to another key.
 * Error messages never contain the plaintext or the keys.
 */
export class SecretBox {
  private readonly current: SecretKey;
  private readonly byId: ReadonlyMap<string, Buffer>;

  constructor(keys: readonly SecretKey[]) {
    const [current] = keys;
    if (current === undefined) throw new Error('SecretBox needs at least one key');
    for (const key of keys) {
      if (key.key.length !== SECRET_KEY_BYTES) {
        throw new Error(`SecretBox key '${key.id}' must be ${SECRET_KEY_BYTES} bytes`);
      }
      if (key.id.includes(':')) throw new Error(`SecretBox key id '${key.id}' must not contain ':'`);
    }
    this.current = current;
    this.byId = new Map(keys.map((key) => [key.id, Buffer.from(key.key)]));
    if (this.byId.size !== keys.length) throw new Error('SecretBox key ids must be unique');
  }

  get currentKeyId(): string {
    return this.current.id;
  }

  seal(plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.current.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(header(this.current.id));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [
      VERSION,
      this.current.id,
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      ciphertext.toString('base64url'),
    ].join(':');
  }

  open(sealed: string): string {
    const { keyId, iv, tag, ciphertext } = parse(sealed);
    const key = this.byId.get(keyId);
    if (key === undefined) {
      throw new SecretUnreadableError(
        SecretErrorCode.KeyUnknown,
        `Secret was sealed with key '${keyId}', which is not in the key ring`,
      );
    }
    const decipher = createDecipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(header(keyId));
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
    } catch {
      // GCM reports only "unable to authenticate": altered data, or a different key under the same id.
      throw new SecretUnreadableError(
        SecretErrorCode.Tampered,
        `Secret sealed with key '${keyId}' failed authentication (altered, or the key changed)`,
      );
    }
  }

  /** False when a value should be re-sealed (sealed with an older key of the ring). */
  isSealedWithCurrentKey(sealed: string): boolean {
    return parse(sealed).keyId === this.current.id;
  }
}

function header(keyId: string): Buffer {
  return Buffer.from(`${VERSION}:${keyId}`, 'utf8');
}

function parse(sealed: string): { keyId: string; iv: Buffer; tag: Buffer; ciphertext: Buffer } {
  const parts = sealed.split(':');
  const [version, keyId, iv, tag, ciphertext] = parts;
  if (
    parts.length !== 5 ||
    version !== VERSION ||
    keyId === undefined ||
    keyId === '' ||
    iv === undefined ||
    tag === undefined ||
    ciphertext === undefined ||
    ![iv, tag, ciphertext].every((field) => BASE64URL.test(field))
  ) {
    throw new SecretUnreadableError(
      SecretErrorCode.Malformed,
      `Sealed secret is not in the ${VERSION} format`,
    );
  }
  const ivBytes = Buffer.from(iv, 'base64url');
  const tagBytes = Buffer.from(tag, 'base64url');
  if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) {
    throw new SecretUnreadableError(SecretErrorCode.Malformed, 'Sealed secret has a bad nonce or tag length');
  }
  return { keyId, iv: ivBytes, tag: tagBytes, ciphertext: Buffer.from(ciphertext, 'base64url') };
}
