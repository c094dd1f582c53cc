import { isDecimalId } from './decimal-id.validator';

describe('isDecimalId', () => {
  it('accepts decimal BIGINT UNSIGNED values', () => {
    for (const id of ['0', '1', '42', '9007199254740993', '18446744073709551615']) {
      expect({ id, ok: isDecimalId(id) }).toEqual({ id, ok: true });
    }
  });

  it('refuses anything else', () => {
    for (const id of [
      '',
      '-1',
      '1.5',
      '1e3',
      ' 1',
      '0x10',
      'abc',
      '18446744073709551616',
      '1'.repeat(21),
      7,
    ]) {
      expect({ id, ok: isDecimalId(id) }).toEqual({ id, ok: false });
    }
  });
});
