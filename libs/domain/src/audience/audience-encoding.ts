import { analyse } from 'chardet';
import { decode } from 'iconv-lite';

/** The encodings an audience file is read in; anything else is refused. */
export enum AudienceEncoding {
  Utf8 = 'UTF-8',
  Utf16Le = 'UTF-16LE',
  Utf16Be = 'UTF-16BE',
  /** Also what ISO-8859-1 files are read as (the WHATWG Encoding Standard does the same). */
  Windows1252 = 'windows-1252',
}

export type EncodingVerdict =
  | {
      readonly ok: true;
      readonly encoding: AudienceEncoding;
      /** Bytes of the byte-order mark at the start, to skip. */
      readonly bomLength: number;
    }
  | {
      readonly ok: false;
      /** 1-based line of `offset` within the bytes looked at. */
      readonly line: number;
      /** The byte at fault. */
      readonly offset: number;
      readonly reason: string;
    };

/** Bytes from the start of a file that detectAudienceEncoding looks at. */
export const ENCODING_SAMPLE_BYTES = 64 * 1024;

const LF = 0x0a;
// Bytes that are no character in Windows-1252 (decoders would turn them into U+FFFD).
const UNDEFINED_IN_WINDOWS_1252 = new Set([0x81, 0x8d, 0x8f, 0x90, 0x9d]);
const LATIN_1_NAMES = new Set(['ISO-8859-1', 'windows-1252']);
const SAVE_AS_UTF8 = 'save the file as UTF-8';

// Marks of Windows-1252's 0x80-0x9F and 0xA1-0xBF that sit inside a word only in text of another
// encoding read wrongly: not the letters (Š, œ...), the apostrophe ’, the middle dot (Catalan l·l),
// the ordinals ª º or the soft hyphen.
const NOT_INSIDE_WORDS = /[€‚„…†‡ˆ‰‹‘“”•–—˜™›¡¢£¤¥¦§¨©«¬®¯°±²³´µ¶¸¹»¼½¾¿]/u;
const LETTER = /\p{L}/u;
const ASCII_LETTER = /[A-Za-z]/;
// Western words mix accented letters with plain ones; Cyrillic, Greek, Hebrew or CJK bytes read as
// Windows-1252 give runs of accented letters and marks.
const MAX_NON_ASCII_RUN = 3;
const MIN_ALL_ACCENTED_WORD = 3;

// A mark between two letters, or between a letter and another non-ASCII character (©»astný).
function touchesWord(before: string, after: string): boolean {
  const nonAscii = (char: string): boolean => char !== '' && char.charCodeAt(0) >= 0x80 && char !== '\u00a0';
  return (
    (LETTER.test(before) && LETTER.test(after)) ||
    (LETTER.test(before) && nonAscii(after)) ||
    (nonAscii(before) && LETTER.test(after))
  );
}

/**
 * Where text decoded as Windows-1252 stops looking like a Western European language: a mark inside
 * a word, a run of more than MAX_NON_ASCII_RUN non-ASCII characters, or a word of at least
 * MIN_ALL_ACCENTED_WORD letters none of which is plain ASCII. The index, or -1 when it reads well.
 */
export function implausibleLatinIndex(text: string): number {
  let run = 0;
  let wordLetters = 0;
  let wordAscii = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    run = char.charCodeAt(0) >= 0x80 && char !== '\u00a0' ? run + 1 : 0;
    if (run > MAX_NON_ASCII_RUN) return i - MAX_NON_ASCII_RUN;
    if (NOT_INSIDE_WORDS.test(char) && touchesWord(text[i - 1] ?? '', text[i + 1] ?? '')) return i;
    if (LETTER.test(char)) {
      wordLetters++;
      if (ASCII_LETTER.test(char)) wordAscii++;
      continue;
    }
    if (wordLetters >= MIN_ALL_ACCENTED_WORD && wordAscii === 0) return i - wordLetters;
    wordLetters = 0;
    wordAscii = 0;
  }
  return wordLetters >= MIN_ALL_ACCENTED_WORD && wordAscii === 0 ? text.length - wordLetters : -1;
}

/** 1-based line of a byte offset: one more than the line feeds before it. */
export function lineAt(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < bytes.length; i++) if (bytes[i] === LF) line++;
  return line;
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.every((byte, i) => bytes[i] === byte);
}

// Length of the sequence a lead byte starts, with the range its second byte must be in (RFC 3629).
function sequenceOf(lead: number): [number, number, number] | undefined {
  if (lead < 0x80) return [1, 0, 0];
  if (lead >= 0xc2 && lead <= 0xdf) return [2, 0x80, 0xbf];
  if (lead === 0xe0) return [3, 0xa0, 0xbf];
  if (lead === 0xed) return [3, 0x80, 0x9f];
  if (lead >= 0xe1 && lead <= 0xef) return [3, 0x80, 0xbf];
  if (lead === 0xf0) return [4, 0x90, 0xbf];
  if (lead === 0xf4) return [4, 0x80, 0x8f];
  if (lead >= 0xf1 && lead <= 0xf3) return [4, 0x80, 0xbf];
  return undefined;
}

/**
 * Offset of the first byte that is not valid UTF-8 (overlong forms, surrogates and values past
 * U+10FFFF included), or -1. With `partialEnd` a sequence cut off by the end of the bytes is not
 * an error (the rest of the file follows).
 */
export function invalidUtf8Offset(bytes: Uint8Array, partialEnd = false): number {
  let i = 0;
  while (i < bytes.length) {
    const sequence = sequenceOf(bytes[i] as number);
    if (sequence === undefined) return i;
    const [length, low, high] = sequence;
    for (let k = 1; k < length; k++) {
      if (i + k >= bytes.length) return partialEnd ? -1 : i;
      const byte = bytes[i + k] as number;
      const [min, max] = k === 1 ? [low, high] : [0x80, 0xbf];
      if (byte < min || byte > max) return i;
    }
    i += length;
  }
  return -1;
}

/** Offset of the first byte that is no character in Windows-1252, or -1. */
export function undefinedWindows1252Offset(bytes: Uint8Array): number {
  return bytes.findIndex((byte) => UNDEFINED_IN_WINDOWS_1252.has(byte));
}

function refuse(bytes: Uint8Array, offset: number, reason: string): EncodingVerdict {
  return { ok: false, line: lineAt(bytes, offset), offset, reason };
}

/** The encoding a byte-order mark at the start names (UTF-32 refused), or undefined without one. */
export function byteOrderMark(start: Uint8Array): EncodingVerdict | undefined {
  if (startsWith(start, [0xef, 0xbb, 0xbf])) {
    return { ok: true, encoding: AudienceEncoding.Utf8, bomLength: 3 };
  }
  if (startsWith(start, [0xff, 0xfe, 0, 0]) || startsWith(start, [0, 0, 0xfe, 0xff])) {
    return refuse(start, 0, `the file is UTF-32, which is not read: ${SAVE_AS_UTF8}`);
  }
  if (startsWith(start, [0xff, 0xfe])) return { ok: true, encoding: AudienceEncoding.Utf16Le, bomLength: 2 };
  if (startsWith(start, [0xfe, 0xff])) return { ok: true, encoding: AudienceEncoding.Utf16Be, bomLength: 2 };
  return undefined;
}

/**
 * Offset of the first byte that is not plain ASCII text (0x80 and above, or NUL), or -1. Such bytes
 * read the same in every encoding read here but UTF-16, so they can be passed on before the
 * encoding is known.
 */
export function firstNonAsciiOffset(bytes: Uint8Array): number {
  return bytes.findIndex((byte) => byte >= 0x80 || byte === 0);
}

/** Whether the bytes at `at` are one whole UTF-8 character, not one, or one cut off by the end. */
export function utf8SequenceAt(bytes: Uint8Array, at: number): 'valid' | 'invalid' | 'incomplete' {
  const sequence = sequenceOf(bytes[at] as number);
  if (sequence === undefined) return 'invalid';
  const [length, low, high] = sequence;
  for (let k = 1; k < length; k++) {
    if (at + k >= bytes.length) return 'incomplete';
    const byte = bytes[at + k] as number;
    const [min, max] = k === 1 ? [low, high] : [0x80, 0xbf];
    if (byte < min || byte > max) return 'invalid';
  }
  return 'valid';
}

function hex(byte: number | undefined): string {
  return `0x${(byte ?? 0).toString(16).toUpperCase().padStart(2, '0')}`;
}

/**
 * The encoding of an audience file from its first bytes (`sample`, the whole file when `complete`):
 * a byte-order mark decides (byteOrderMark), else detectUnmarkedEncoding.
 */
export function detectAudienceEncoding(sample: Uint8Array, complete: boolean): EncodingVerdict {
  return byteOrderMark(sample) ?? detectUnmarkedEncoding(sample, complete);
}

/**
 * The encoding of bytes without a byte-order mark (`complete` when they run to the end of the
 * file; `before`, plain ASCII of the file before them, gives chardet context). Valid UTF-8 is UTF-8 (ASCII included); a NUL byte means a binary file or UTF-16 without a
 * mark, refused. Otherwise chardet guesses: ISO-8859-1 and Windows-1252 are read as Windows-1252
 * when the text then reads as a Western European language (implausibleLatinIndex) and has no byte
 * that is no character there; anything else is refused, naming the guess. The guess between 8-bit
 * encodings is statistical: a short file in another one (ISO-8859-2, say) can still pass for
 * Windows-1252, so UTF-8 is what to ask producers for.
 */
export function detectUnmarkedEncoding(
  sample: Uint8Array,
  complete: boolean,
  before: Uint8Array = new Uint8Array(0),
): EncodingVerdict {
  const nul = sample.indexOf(0);
  if (nul !== -1) {
    return refuse(
      sample,
      nul,
      'a NUL byte: this is not a text file, or it is UTF-16 without a byte-order mark; ' + SAVE_AS_UTF8,
    );
  }
  const invalid = invalidUtf8Offset(sample, !complete);
  if (invalid === -1) return { ok: true, encoding: AudienceEncoding.Utf8, bomLength: 0 };
  const guess = analyse(before.length === 0 ? sample : Buffer.concat([before, sample]))[0]?.name;
  const notUtf8 = `byte ${hex(sample[invalid])} is not UTF-8`;
  if (guess === undefined || !LATIN_1_NAMES.has(guess)) {
    return refuse(
      sample,
      invalid,
      `${notUtf8}, and the file looks like ${guess ?? 'no known encoding'}, which is not read: ${SAVE_AS_UTF8}`,
    );
  }
  const undefinedByte = undefinedWindows1252Offset(sample);
  if (undefinedByte !== -1) return refuse(sample, undefinedByte, windows1252Refusal(sample[undefinedByte]));
  if (implausibleLatinIndex(decode(Buffer.from(sample), AudienceEncoding.Windows1252)) !== -1) {
    return refuse(
      sample,
      invalid,
      `${notUtf8}, and read as ${guess} it does not look like Western European text, so it is ` +
        `probably in another 8-bit encoding, which is not read: ${SAVE_AS_UTF8}`,
    );
  }
  return { ok: true, encoding: AudienceEncoding.Windows1252, bomLength: 0 };
}

/** Why a byte of a file read as Windows-1252 cannot be read. */
export function windows1252Refusal(byte: number | undefined): string {
  return `byte ${hex(byte)} is no character in Windows-1252, the encoding the file was taken to be in; ${SAVE_AS_UTF8}`;
}

/** Why a byte of a file read as UTF-8 cannot be read. */
export function utf8Refusal(byte: number | undefined): string {
  return `byte ${hex(byte)} is not UTF-8 (the start of the file was); ${SAVE_AS_UTF8}`;
}
