import { encode } from 'iconv-lite';
import {
  AudienceEncoding,
  detectAudienceEncoding,
  invalidUtf8Offset,
  lineAt,
  implausibleLatinIndex,
  undefinedWindows1252Offset,
} from './audience-encoding';

const CSV =
  'phone,first_name,city\n+4915112345678,José,Köln\n+4915112345679,Zoë,Zürich\n+4915112345670,Ærøskøbing,Málaga\n';

describe('detectAudienceEncoding', () => {
  it.each([
    ['UTF-8 without a byte-order mark', Buffer.from(CSV), AudienceEncoding.Utf8, 0],
    ['ASCII', Buffer.from('phone\n+4915112345678\n'), AudienceEncoding.Utf8, 0],
    ['UTF-8 with a byte-order mark', Buffer.from(`\ufeff${CSV}`), AudienceEncoding.Utf8, 3],
    ['UTF-16 LE with a mark', encode(CSV, 'utf-16le', { addBOM: true }), AudienceEncoding.Utf16Le, 2],
    ['UTF-16 BE with a mark', encode(CSV, 'utf-16be', { addBOM: true }), AudienceEncoding.Utf16Be, 2],
    ['ISO-8859-1', Buffer.from(CSV, 'latin1'), AudienceEncoding.Windows1252, 0],
    [
      'Windows-1252',
      encode(`${CSV}+4915112345671,“Quoted” €,x\n`, 'windows-1252'),
      AudienceEncoding.Windows1252,
      0,
    ],
  ])('reads %s', (_label, bytes, encoding, bomLength) => {
    expect(detectAudienceEncoding(bytes, true)).toEqual({ ok: true, encoding, bomLength });
  });

  it('takes a sequence cut by the end of a sample as UTF-8 still, but not at the end of the file', () => {
    const bytes = Buffer.from('phone,name\n+4915112345678,Jürgen');
    const cut = bytes.subarray(0, bytes.indexOf(0xbc));
    expect(detectAudienceEncoding(cut, false)).toMatchObject({ ok: true, encoding: AudienceEncoding.Utf8 });
    expect(detectAudienceEncoding(cut, true)).not.toMatchObject({ encoding: AudienceEncoding.Utf8 });
  });

  it.each([
    [
      'UTF-16 without a mark (NUL bytes)',
      Buffer.from(CSV, 'utf16le'),
      1,
      'a NUL byte: this is not a text file, or it is UTF-16 without a byte-order mark',
    ],
    ['a binary file (a zip archive)', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0]), 1, 'a NUL byte'],
    ['UTF-32 LE', encode(CSV, 'utf-32le', { addBOM: true }), 1, 'the file is UTF-32'],
    ['UTF-32 BE', encode(CSV, 'utf-32be', { addBOM: true }), 1, 'the file is UTF-32'],
    [
      'a byte that is no character in Windows-1252',
      Buffer.concat([
        Buffer.from('phone,name\n+4915112345678,Jos', 'latin1'),
        Buffer.from([0xe9, 0x81, 0x0a]),
      ]),
      2,
      'byte 0x81 is no character in Windows-1252',
    ],
  ])('refuses %s at its line, saying why', (_label, bytes, line, reason) => {
    const verdict = detectAudienceEncoding(bytes, true);
    expect(verdict).toMatchObject({ ok: false, line });
    expect(!verdict.ok && verdict.reason).toContain(reason);
    expect(!verdict.ok && verdict.reason).toContain('save the file as UTF-8');
  });

  // chardet alone takes most of these for ISO-8859-1 or Windows-1252 (short texts, few words).
  it.each([
    ['Cyrillic in Windows-1251', 'Иван Петров,Москва', 'windows-1251'],
    ['Cyrillic in KOI8-R', 'Иван Петров,Москва', 'koi8-r'],
    ['Greek in Windows-1253', 'Νίκος Παπαδόπουλος,Αθήνα', 'windows-1253'],
    ['Hebrew in Windows-1255', 'דוד כהן,תל אביב', 'windows-1255'],
    ['Arabic in Windows-1256', 'محمد علي,دبي', 'windows-1256'],
    ['Japanese kanji in Shift_JIS', '山田太郎,東京', 'shift_jis'],
    ['Japanese kana in Shift_JIS', 'やまだ たろう,とうきょう', 'shift_jis'],
    ['Japanese in EUC-JP', '山田太郎,東京', 'euc-jp'],
    ['Chinese in GBK', '张伟,北京', 'gbk'],
    ['Chinese in Big5', '陳大文,台北', 'big5'],
    ['Korean in EUC-KR', '김민준,서울', 'euc-kr'],
    ['Polish in ISO-8859-2', 'Łukasz Żółć,Łódź', 'iso-8859-2'],
    ['Polish in Windows-1250', 'Zofia Żółć,Łódź', 'windows-1250'],
    ['Czech in ISO-8859-2', 'Jiří Šťastný,Brno', 'iso-8859-2'],
  ])('refuses %s, which would read as the wrong letters', (_label, cells, encoding) => {
    const verdict = detectAudienceEncoding(
      encode(`phone,name,city\n+4915112345678,${cells}\n`, encoding),
      true,
    );
    expect(verdict).toMatchObject({ ok: false, line: 2 });
    expect(!verdict.ok && verdict.reason).toMatch(
      /is not UTF-8, and .* which is not read: save the file as UTF-8/,
    );
  });
});

describe('implausibleLatinIndex', () => {
  it.each([
    'José, Köln, Zoë, Zürich, Málaga, Conceição, São Paulo, Þórður, Reykjavík, Ærøskøbing',
    '“Größe” 20°C — it’s €5, col·lecció, N.º 5, Œuvre, Škoda, ½ price',
    '«Élise», „Ärger“, »Élan«, Café™, Nestlé®, Øl, Åre',
  ])('reads Western European text: %s', (text) => {
    expect(implausibleLatinIndex(text)).toBe(-1);
  });

  it.each([
    ['a run of four accented characters', 'x ÈâàíÏ', 2],
    ['a word of three accented letters', 'ab Ñîå cd', 3],
    ['a word of three accented letters at the end', 'ab Ñîå', 3],
    ['a mark inside a word', 'ŽR“c', 2],
    ['a mark between a letter and an accented one', 'Jiøí ©»astný', 6],
  ])('finds %s', (_label, text, index) => {
    expect(implausibleLatinIndex(text)).toBe(index);
  });
});

describe('invalidUtf8Offset', () => {
  it.each([
    ['valid text', Buffer.from('aé€😀'), -1],
    ['a lone continuation byte', Buffer.from([0x61, 0x80]), 1],
    ['an overlong slash (C0 AF)', Buffer.from([0x61, 0xc0, 0xaf]), 1],
    ['an overlong three-byte form (E0 80 AF)', Buffer.from([0xe0, 0x80, 0xaf]), 0],
    ['an encoded surrogate (ED A0 80)', Buffer.from([0x61, 0x62, 0xed, 0xa0, 0x80]), 2],
    ['past U+10FFFF (F4 90 80 80)', Buffer.from([0xf4, 0x90, 0x80, 0x80]), 0],
    ['a Latin-1 é between ASCII', Buffer.from('Jos\xe9!', 'latin1'), 3],
    ['a sequence cut at the end', Buffer.from([0x61, 0xe2, 0x82]), 1],
  ])('%s', (_label, bytes, offset) => {
    expect(invalidUtf8Offset(bytes)).toBe(offset);
  });

  it('lets a sequence cut at the end pass when more follows', () => {
    expect(invalidUtf8Offset(Buffer.from([0x61, 0xe2, 0x82]), true)).toBe(-1);
    expect(invalidUtf8Offset(Buffer.from([0x61, 0xe2, 0x41]), true)).toBe(1);
  });
});

it('finds bytes with no Windows-1252 character and counts lines by line feeds', () => {
  expect(undefinedWindows1252Offset(Buffer.from([0x41, 0x80, 0x9d]))).toBe(2);
  expect(undefinedWindows1252Offset(Buffer.from('plain'))).toBe(-1);
  expect(lineAt(Buffer.from('a\r\nb\nc'), 5)).toBe(3);
  expect(lineAt(Buffer.from('abc'), 0)).toBe(1);
});
