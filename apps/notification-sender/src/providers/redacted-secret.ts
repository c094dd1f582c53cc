import { inspect } from 'node:util';

const REDACTED = '[redacted]';

/**
 * A decrypted credential secret that cannot leak by accident: JSON (pino), string conversion and
 * util.inspect all print `[redacted]`, and the value sits in a private field no serializer walks.
 * Only request builders call reveal().
 */
export class RedactedSecret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toJSON(): string {
    return REDACTED;
  }

  toString(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return `RedactedSecret(${REDACTED})`;
  }
}
