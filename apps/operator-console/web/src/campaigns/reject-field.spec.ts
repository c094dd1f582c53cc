import { rejectField } from './reject-field';

describe('rejectField', () => {
  it('names the field a reason is about', () => {
    expect(rejectField('variable first_name is empty')).toBe('first_name');
    expect(rejectField('phone number contains letters')).toBe('phone');
    expect(rejectField('not a valid DE phone number')).toBe('phone');
    expect(rejectField('not a valid email address')).toBe('email');
    expect(rejectField('duplicate of line 3')).toBe('address');
    expect(rejectField('expected 3 cells, found 2')).toBe('row');
    expect(rejectField('something else')).toBe('');
  });
});
