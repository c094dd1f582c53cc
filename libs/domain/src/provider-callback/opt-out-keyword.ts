import { Channel, Provider } from '@ums/contracts';

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

// Twilio's default opt-in keywords on SMS: its own STOP block lifts on these, so our record follows.
const TWILIO_SMS_OPT_IN_KEYWORDS = new Set(['START', 'YES', 'UNSTOP']);
// Elsewhere (WhatsApp has no keyword handling) only the unambiguous ones: YES answers too many questions.
const OPT_IN_KEYWORDS = new Set(['START', 'UNSTOP']);

/** An inbound text as a keyword: trimmed, final `.`/`!` dropped, inner spaces collapsed, upper case. */
function keywordOf(text: string): string {
  return text
    .trim()
    .replace(/[.!]+$/, '')
    .replace(/\s+/g, ' ')
    .toUpperCase();
}

/** True when an inbound text is only an opt-out keyword (case, spaces and final punctuation ignored). */
export function isOptOutText(text: string | undefined): boolean {
  return text !== undefined && OPT_OUT_KEYWORDS.has(keywordOf(text));
}

/**
 * True when an inbound text is only an opt-in keyword, which lifts an opt-out of that address: on
 * Twilio SMS, Twilio's own set (START, YES, UNSTOP), since Twilio lifts its block on them; on every
 * other provider and channel START and UNSTOP only.
 */
export function isOptInText(text: string | undefined, provider: Provider, channel: Channel): boolean {
  if (text === undefined) return false;
  const keywords =
    provider === Provider.Twilio && channel === Channel.Sms ? TWILIO_SMS_OPT_IN_KEYWORDS : OPT_IN_KEYWORDS;
  return keywords.has(keywordOf(text));
}

/** What an inbound keyword asks of one address's opt-out. */
export type OptChange = 'opt-out' | 'opt-in';

/**
 * The net change per key of keyword replies read in order (a chunk of inbound events): the last
 * one wins, so STOP then START leaves the address opted in, and START then STOP opted out.
 */
export function latestOptChanges<T>(
  changes: readonly { readonly key: string; readonly change: OptChange; readonly item: T }[],
): { readonly optOuts: T[]; readonly optIns: T[] } {
  const last = new Map<string, { change: OptChange; item: T }>();
  for (const { key, change, item } of changes) {
    last.delete(key); // re-inserted, so the result follows the order of the last changes
    last.set(key, { change, item });
  }
  const optOuts: T[] = [];
  const optIns: T[] = [];
  for (const { change, item } of last.values()) (change === 'opt-out' ? optOuts : optIns).push(item);
  return { optOuts, optIns };
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
