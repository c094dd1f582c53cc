import {
  describeCodePoint,
  findControlCharacter,
  hasLoneSurrogate,
  LINE_BREAKS_AND_TABS,
} from './text-rules';

describe('hasLoneSurrogate', () => {
  it.each([
    ['plain text', 'Hello', false],
    ['a pair (an emoji)', 'Hi 😀', false],
    ['a high surrogate alone', 'a\ud800b', true],
    ['a high surrogate at the end', 'ab\ud83d', true],
    ['a low surrogate alone', 'a\udc00', true],
    ['a low surrogate before its high one', '\ude00\ud83d', true],
    ['empty', '', false],
  ])('%s', (_label, text, expected) => {
    expect(hasLoneSurrogate(text)).toBe(expected);
  });
});

describe('findControlCharacter', () => {
  it.each([
    ['plain text', 'Winter sale', '', undefined],
    ['NUL', 'a\u0000b', '', 'U+0000'],
    ['BEL', 'ring\u0007', '', 'U+0007'],
    ['a line feed where none is allowed', 'a\nb', '', 'U+000A'],
    ['a line feed and tab where they are', 'a\n\tb\r\n', LINE_BREAKS_AND_TABS, undefined],
    ['ESC after an allowed line feed', 'a\n\u001b[31m', LINE_BREAKS_AND_TABS, 'U+001B'],
    ['DEL', 'x\u007f', '', 'U+007F'],
    ['a C1 control', 'x\u0085', LINE_BREAKS_AND_TABS, 'U+0085'],
    ['non-Latin letters and emoji', 'Ünïcödé 日本 😀', '', undefined],
  ])('%s', (_label, text, allowed, expected) => {
    expect(findControlCharacter(text, allowed)).toBe(expected);
  });

  it('finds the same character when asked twice (no state kept between calls)', () => {
    expect(findControlCharacter('a\u0001')).toBe('U+0001');
    expect(findControlCharacter('a\u0001')).toBe('U+0001');
  });

  it('names code points as U+XXXX', () => {
    expect(describeCodePoint(0x7)).toBe('U+0007');
    expect(describeCodePoint(0x1f600)).toBe('U+1F600');
  });
});
