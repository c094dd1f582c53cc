// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// Unicode category Cc: C0 controls, DEL and C1 controls.
const CONTROL = /\p{Cc}/gu;

/** True when the string holds a lone UTF-16 surrogate: it has no UTF-8 form (MySQL refuses it). */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/** `U+0007`: how a refusal names a character. */
export function describeCodePoint(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * The first control character (Unicode Cc: U+0000-U+001F, U+007F-U+009F) of `text` that is not in
 * `allowed` (e.g. '\n\r\t' for text that may span lines), as `U+0007`; undefined when there is none.
 */
export function findControlCharacter(text: string, allowed = ''): string | undefined {
  CONTROL.lastIndex = 0;
  for (let match = CONTROL.exec(text); match !== null; match = CONTROL.exec(text)) {
    if (!allowed.includes(match[0])) return describeCodePoint(match[0].charCodeAt(0));
  }
  return undefined;
}

/** Line breaks and tabs: what multi-line text (a message, a CSV cell) may hold among the controls. */
export const LINE_BREAKS_AND_TABS = '\n\r\t';
