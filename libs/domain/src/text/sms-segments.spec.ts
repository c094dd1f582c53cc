import { SegmentedMessage } from 'sms-segments-calculator';
import { smsSegments } from './sms-segments';

const EMOJI = '😀'; // one surrogate pair: 2 UTF-16 code units

describe('smsSegments', () => {
  it.each([
    ['', 1, 0],
    ['a', 1, 1],
    ['a'.repeat(160), 1, 160],
    ['a'.repeat(161), 2, 161],
    ['a'.repeat(153 * 2), 2, 306],
    ['a'.repeat(153 * 2 + 1), 3, 307],
    ['a'.repeat(153 * 3), 3, 459],
  ])('GSM-7 boundary case %#', (text, segments, units) => {
    expect(smsSegments(text)).toEqual({ encoding: 'gsm7', segments, units });
  });

  it('counts extension characters as two septets', () => {
    expect(smsSegments('^{}\\[~]|€\f')).toEqual({ encoding: 'gsm7', segments: 1, units: 20 });
    expect(smsSegments('€'.repeat(80))).toEqual({ encoding: 'gsm7', segments: 1, units: 160 });
    expect(smsSegments('€'.repeat(81))).toEqual({ encoding: 'gsm7', segments: 2, units: 162 });
    expect(smsSegments(`${'a'.repeat(159)}[`)).toEqual({ encoding: 'gsm7', segments: 2, units: 161 });
  });

  it('never splits an extension character from its escape at a part boundary', () => {
    // 152 septets then a 2-septet char: it goes whole into the second part.
    const split = `${'a'.repeat(152)}€${'a'.repeat(153 - 2)}`;
    expect(smsSegments(split)).toEqual({ encoding: 'gsm7', segments: 2, units: 305 });
    expect(smsSegments(`${split}a`)).toEqual({ encoding: 'gsm7', segments: 3, units: 306 });
    // Exactly filling the first part with an extension char at its end keeps two parts for 306 septets.
    const filled = `${'a'.repeat(151)}€${'a'.repeat(153)}`;
    expect(smsSegments(filled)).toEqual({ encoding: 'gsm7', segments: 2, units: 306 });
  });

  it('keeps the accented letters of the default alphabet in GSM-7, others go UCS-2', () => {
    expect(smsSegments('é è ù ì ò Ç Ø ø Å å Æ æ ß É Ä Ö Ñ Ü ä ö ñ ü à ¡ ¿ § £ ¥ ¤ ΔΦΓΛΩΠΨΣΘΞ')).toMatchObject(
      {
        encoding: 'gsm7',
      },
    );
    expect(smsSegments('ç')).toMatchObject({ encoding: 'ucs2' });
    expect(smsSegments('á')).toMatchObject({ encoding: 'ucs2' });
    expect(smsSegments('`')).toMatchObject({ encoding: 'ucs2' });
  });

  it.each([
    ['ж'.repeat(70), 1, 70],
    ['ж'.repeat(71), 2, 71],
    ['ж'.repeat(67 * 2), 2, 134],
    ['ж'.repeat(67 * 2 + 1), 3, 135],
    [`${'a'.repeat(69)}ж`, 1, 70],
    [`${'a'.repeat(160)}ж`, 3, 161],
  ])('UCS-2 boundary case %#', (text, segments, units) => {
    expect(smsSegments(text)).toEqual({ encoding: 'ucs2', segments, units });
  });

  it('counts an emoji as two code units and never splits it across parts', () => {
    expect(smsSegments(EMOJI.repeat(35))).toEqual({ encoding: 'ucs2', segments: 1, units: 70 });
    expect(smsSegments(EMOJI.repeat(36))).toEqual({ encoding: 'ucs2', segments: 2, units: 72 });
    // 66 units then an emoji: the pair does not fit the 67-unit part and starts the next one.
    const straddling = `${'ж'.repeat(66)}${EMOJI}${'ж'.repeat(65)}`;
    expect(smsSegments(straddling)).toEqual({ encoding: 'ucs2', segments: 2, units: 133 });
    expect(smsSegments(`${straddling}ж`)).toEqual({ encoding: 'ucs2', segments: 3, units: 134 });
  });

  it('agrees with the Twilio segment calculator on random texts', () => {
    const pools = ['abcXYZ 0123456789.,!?@£$¥èéÇ\nΔΩß', '^{}\\[~]|€', 'жçáЖ中文', '😀🎉🚀'];
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 400; round += 1) {
      const allowed = pools.filter((_, i) => i < 2 || random(3) === 0);
      const length = random(420);
      let text = '';
      for (let i = 0; i < length; i += 1) {
        const pool = [...(allowed[random(allowed.length)] ?? '')];
        text += pool[random(pool.length)] ?? '';
      }
      const reference = new SegmentedMessage(text);
      const ours = smsSegments(text);
      expect({ text, encoding: ours.encoding, segments: ours.segments }).toEqual({
        text,
        encoding: reference.encodingName === 'GSM-7' ? 'gsm7' : 'ucs2',
        segments: reference.segmentsCount,
      });
    }
  });
});
