import { createHmac } from 'node:crypto';

/**
 * Meta's X-Hub-Signature-256 (and our native X-Sim-Signature): "sha256=" + hex HMAC-SHA256 of the
 * raw body, keyed with the app secret (native: the credential's callback secret).
 */
export function hubSignature256(secret: string, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody, 'utf8').digest('hex')}`;
}

/**
 * Twilio's X-Twilio-Signature: base64 HMAC-SHA1, keyed with the auth token, of the full URL
 * (query included, exactly as called) followed by every POST parameter sorted by name, each as
 * name + value with no separators.
 */
export function twilioSignature(
  authToken: string,
  url: string,
  params: Readonly<Record<string, string>>,
): string {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, key) => acc + key + (params[key] ?? ''), url);
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}
