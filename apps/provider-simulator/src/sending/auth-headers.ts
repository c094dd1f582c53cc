/** The token of an `Authorization: Bearer <token>` header. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined || !/^bearer /i.test(header)) return undefined;
  const token = header.slice(7).trim();
  return token === '' ? undefined : token;
}

/** User and password of an `Authorization: Basic <base64>` header. */
export function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  if (header === undefined || !/^basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * Whether a presented secret matches the configured one; a credential without a secret accepts
 * any (tests configure only what they check). Not constant-time: this is a test double.
 */
export function secretMatches(configured: string | undefined, presented: string | undefined): boolean {
  return configured === undefined ? presented !== undefined : configured === presented;
}

/** A header's single value (Fastify gives arrays for repeated headers). */
export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}
