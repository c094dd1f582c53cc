/** How an SMS text is encoded on the air: the GSM 03.38 default alphabet, or UCS-2 for anything else. */
export type SmsEncoding = 'gsm7' | 'ucs2';

/** The parts an SMS text takes and the encoding they use. */
export interface SmsSegments {
  readonly encoding: SmsEncoding;
  /** At least 1 (an empty text still goes as one part). */
  readonly segments: number;
  /** Septets (gsm7) or UTF-16 code units (ucs2) of the whole text. */
  readonly units: number;
}

/** Septets of one part alone, and of each part of a concatenated message (the rest carries its header). */
export const GSM7_SINGLE_SEPTETS = 160;
export const GSM7_PART_SEPTETS = 153;
/** UTF-16 code units of one part alone, and of each part of a concatenated message. */
export const UCS2_SINGLE_UNITS = 70;
export const UCS2_PART_UNITS = 67;

/** The GSM 03.38 default alphabet (one septet each), as UTF-16 code units. */
const GSM7_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
/** The extension table: an escape septet and the character's own, two septets that never part. */
const GSM7_EXTENSION = '\f^{}\\[~]|€';

/** Septets per code unit below 0x400 (0: not in GSM-7); € (U+20AC) is the only one above. */
const SEPTETS = new Uint8Array(0x400);
for (const char of GSM7_BASIC) SEPTETS[char.charCodeAt(0)] = 1;
for (const char of GSM7_EXTENSION) if (char !== '€') SEPTETS[char.charCodeAt(0)] = 2;
const EURO = 0x20ac;

/** Septets of a GSM-7 code unit, 0 when the text needs UCS-2. */
function septetsOf(unit: number): number {
  if (unit < 0x400) return SEPTETS[unit] ?? 0;
  return unit === EURO ? 2 : 0;
}

/**
 * The parts an SMS text takes, as carriers split it: GSM-7 when every character is in the default
 * alphabet or its extension table (an extension character counts two septets), 160 septets in one
 * part, else 153 per part, an extension character never split from its escape; otherwise UCS-2,
 * 70 UTF-16 code units in one part, else 67 per part, a surrogate pair (an emoji) never split.
 * One pass over the text, no allocation: it runs for every message sent.
 */
export function smsSegments(text: string): SmsSegments {
  const gsm = gsm7Segments(text);
  return gsm ?? ucs2Segments(text);
}

function gsm7Segments(text: string): SmsSegments | undefined {
  let units = 0;
  let segments = 1;
  let used = 0; // septets in the current 153-septet part
  for (let i = 0; i < text.length; i += 1) {
    const septets = septetsOf(text.charCodeAt(i));
    if (septets === 0) return undefined;
    units += septets;
    if (used + septets > GSM7_PART_SEPTETS) {
      segments += 1;
      used = 0;
    }
    used += septets;
  }
  return { encoding: 'gsm7', segments: units <= GSM7_SINGLE_SEPTETS ? 1 : segments, units };
}

function ucs2Segments(text: string): SmsSegments {
  const units = text.length;
  if (units <= UCS2_SINGLE_UNITS) return { encoding: 'ucs2', segments: 1, units };
  let segments = 1;
  let used = 0;
  for (let i = 0; i < units; i += 1) {
    const code = text.charCodeAt(i);
    const width = code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1)) ? 2 : 1;
    if (used + width > UCS2_PART_UNITS) {
      segments += 1;
      used = 0;
    }
    used += width;
    i += width - 1;
  }
  return { encoding: 'ucs2', segments, units };
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
