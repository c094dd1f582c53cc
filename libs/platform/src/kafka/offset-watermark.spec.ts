import { OffsetWatermark } from './offset-watermark';

describe('OffsetWatermark', () => {
  it('commits nothing until the first offset is done', () => {
    const w = new OffsetWatermark(['10', '11', '12']);
    expect(w.complete(['12'])).toBeUndefined();
    expect(w.complete(['11'])).toBeUndefined();
    expect(w.commitOffset()).toBeUndefined();
    expect(w.complete(['10'])).toBe('13');
    expect(w.allDone).toBe(true);
  });

  it('advances only over a contiguous finished prefix, with gaps in offsets', () => {
    const w = new OffsetWatermark(['5', '7', '9', '20']);
    expect(w.complete(['5'])).toBe('6');
    expect(w.lastResolved()).toBe('5');
    expect(w.complete(['9'])).toBeUndefined();
    expect(w.complete(['7'])).toBe('10');
    expect(w.allDone).toBe(false);
    expect(w.complete(['20'])).toBe('21');
  });

  it('handles offsets beyond 2^53', () => {
    const w = new OffsetWatermark(['9007199254740993', '9007199254740994']);
    expect(w.complete(['9007199254740993', '9007199254740994'])).toBe('9007199254740995');
  });

  it('refuses unknown and unordered offsets', () => {
    expect(() => new OffsetWatermark(['2', '1'])).toThrow('ascending');
    expect(() => new OffsetWatermark(['1']).complete(['3'])).toThrow('not part');
  });

  it('matches a brute-force model under random completion orders', () => {
    for (let round = 0; round < 200; round++) {
      const count = 1 + (round % 17);
      const offsets = Array.from({ length: count }, (_, i) => String(100 + i * (1 + (round % 3))));
      const order = [...offsets].sort(() => Math.random() - 0.5);
      const w = new OffsetWatermark(offsets);
      const finished = new Set<string>();
      for (const offset of order) {
        w.complete([offset]);
        finished.add(offset);
        let prefix = 0;
        while (prefix < offsets.length && finished.has(offsets[prefix] as string)) prefix++;
        const expected = prefix === 0 ? undefined : String(Number(offsets[prefix - 1]) + 1);
        expect(w.commitOffset()).toBe(expected);
      }
      expect(w.allDone).toBe(true);
    }
  });
});
