import { Channel } from '@ums/contracts';

// The keywords carriers and Twilio treat as an opt-out (CTIA), plus common variants.
const OPT_OUT_KEYWORDS = new Set([
  'STOP',
  'STOPALL',
  'STOP ALL',
  'UNSUBSCRIBE',
  'CANCEL',
  'END',
  'QUIT',
  'OPTOUT',
  'OPT OUT',
  'OPT-OUT',
  'REVOKE',
]);

/** True when an inbound text is only an opt-out keyword (case, spaces and final punctuation ignored). */
export function isOptOutText(text: string | undefined): boolean {
  if (text === undefined) return false;
  const word = text
    .trim()
    .replace(/[.!]+$/, '')
    .replace(/\s+/g, ' ')
    .toUpperCase();
  return OPT_OUT_KEYWORDS.has(word);
}

/**
 * The address an opt-out is stored under, as contacts are (E.164 with `+` for phones, lower-case
 * e-mail): WhatsApp reports numbers without `+`, Twilio prefixes WhatsApp numbers with `whatsapp:`.
 */
export function optOutAddress(channel: Channel, from: string): string {
  const bare = from.trim().replace(/^whatsapp:/i, '');
  if (channel === Channel.Email) return bare.toLowerCase();
  return /^\d+$/.test(bare) ? `+${bare}` : bare;
}
