import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Compares two secrets in time independent of where they differ. Both sides are hashed first, so
 * the comparison also takes the same time whatever their lengths (timingSafeEqual needs equal sizes).
 */
export function constantTimeEquals(given: string, expected: string): boolean {
  const a = createHmac('sha256', 'ums-compare').update(given, 'utf8').digest();
  const b = createHmac('sha256', 'ums-compare').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/**
 * Meta's `X-Hub-Signature-256` (and the simulator's `X-Sim-Signature`): `sha256=` + hex
 * HMAC-SHA256 of the raw body bytes, keyed with the app secret.
 */
export function hubSignatureMatches(secret: string, rawBody: Buffer, header: string | undefined): boolean {
  if (header === undefined) return false;
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(header.trim());
  if (match === null) return false;
  // Both sides are 32 bytes here, so the digests are compared directly (one HMAC per callback).
  const given = Buffer.from(match[1] ?? '', 'hex');
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return timingSafeEqual(given, expected);
}

/**
 * Twilio's `X-Twilio-Signature`: base64 HMAC-SHA1, keyed with the auth token, of the full URL as
 * Twilio called it (query included) followed by every POST parameter sorted by name, each as name
 * + value. A name given several times contributes each value, in the order sent.
 */
export function twilioSignatureMatches(
  authToken: string,
  url: string,
  params: readonly (readonly [string, string])[],
  header: string | undefined,
): boolean {
  if (header === undefined) return false;
  const sorted = [...params].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const data = sorted.reduce((acc, [name, value]) => acc + name + value, url);
  const expected = createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
  return constantTimeEquals(header.trim(), expected);
}
