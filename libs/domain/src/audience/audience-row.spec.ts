import { Channel } from '@ums/contracts';
import { addressNormalizerFor } from './audience-address';
import { analyzeAudienceHeader, type AudienceLayout, MAX_VARIABLE_VALUE_LENGTH } from './audience-header';
import { isBlankRow, validateAudienceRow, validateRecipient } from './audience-row';

function layoutOf(header: string[], template: string[]): AudienceLayout {
  const result = analyzeAudienceHeader(header, Channel.Sms, template);
  if (!result.ok) throw new Error(`bad test header: ${JSON.stringify(result)}`);
  return result.layout;
}

const sms = addressNormalizerFor(Channel.Sms, 'DE');

describe('isBlankRow', () => {
  it.each([[['']], [['', '', '']], [['  ', '\t']], [[]]])('treats %j as blank', (cells) => {
    expect(isBlankRow(cells)).toBe(true);
  });

  it.each([[['x']], [['', ' a ', '']]])('treats %j as data', (cells) => {
    expect(isBlankRow(cells)).toBe(false);
  });
});

describe('validateAudienceRow', () => {
  const layout = layoutOf(['phone', 'first_name', 'city'], ['first_name']);

  it('normalizes the address and trims the variables', () => {
    const verdict = validateAudienceRow(['0151 12345678', ' Anna ', ''], layout, sms);
    expect(verdict).toEqual({
      ok: true,
      address: '+4915112345678',
      variables: { first_name: 'Anna', city: '' },
    });
  });

  it('keeps line breaks and tabs inside a value (a quoted multi-line cell)', () => {
    const verdict = validateAudienceRow(['+4915112345678', 'Anna', 'Main St 1\r\nBerlin\tDE'], layout, sms);
    expect(verdict).toMatchObject({ ok: true, variables: { city: 'Main St 1\r\nBerlin\tDE' } });
  });

  it('gives null variables when the file has only the address column', () => {
    expect(validateAudienceRow(['+4915112345678'], layoutOf(['phone'], []), sms)).toEqual({
      ok: true,
      address: '+4915112345678',
      variables: null,
    });
  });

  it.each([
    [['+4915112345678', 'Anna'], 'expected 3 cells, found 2'],
    [['+4915112345678', 'Anna', 'Berlin', 'x'], 'expected 3 cells, found 4'],
    [['', 'Anna', 'Berlin'], 'phone number is empty'],
    [['0151 1234567', 'Anna', 'Berlin'], 'not a valid DE phone number'],
    [['+4915112345678', '', 'Berlin'], 'variable first_name is empty'],
    [['+4915112345678', '   ', 'Berlin'], 'variable first_name is empty'],
    [
      ['+4915112345678', 'Anna', 'x'.repeat(MAX_VARIABLE_VALUE_LENGTH + 1)],
      `variable city is longer than ${MAX_VARIABLE_VALUE_LENGTH} characters`,
    ],
    [['+4915112345678', 'An\u0000na', 'Berlin'], 'variable first_name contains the control character U+0000'],
    [['+4915112345678', 'Anna', 'Ber\u001b[2Jlin'], 'variable city contains the control character U+001B'],
  ])('rejects %j: %s', (cells, reason) => {
    expect(validateAudienceRow(cells, layout, sms)).toEqual({ ok: false, reason });
  });

  it('keeps a column called __proto__ as a plain key', () => {
    const verdict = validateAudienceRow(['+4915112345678', 'x'], layoutOf(['phone', '__proto__'], []), sms);
    expect(verdict.ok && JSON.stringify(verdict.variables)).toBe('{"__proto__":"x"}');
  });
});

describe('validateRecipient', () => {
  it('normalizes the address and keeps the variables as given', () => {
    expect(
      validateRecipient(
        { address: '+49 151 12345678', variables: { first_name: ' Anna ' } },
        ['first_name'],
        sms,
      ),
    ).toEqual({ ok: true, address: '+4915112345678', variables: { first_name: ' Anna ' } });
  });

  it('gives null variables when there are none', () => {
    expect(validateRecipient({ address: '+4915112345678' }, [], sms)).toEqual({
      ok: true,
      address: '+4915112345678',
      variables: null,
    });
    expect(validateRecipient({ address: '+4915112345678', variables: {} }, [], sms)).toMatchObject({
      variables: null,
    });
  });

  it.each([
    [{ address: 'nope' }, [], 'phone number contains letters'],
    [{ address: '+4915112345678' }, ['first_name'], 'variable first_name is missing'],
    [
      { address: '+4915112345678', variables: { first_name: ' ' } },
      ['first_name'],
      'variable first_name is empty',
    ],
    [
      { address: '+4915112345678', variables: { 'first name': 'A' } },
      [],
      'variable name "first name" is not valid',
    ],
    [
      { address: '+4915112345678', variables: { a: 'x'.repeat(MAX_VARIABLE_VALUE_LENGTH + 1) } },
      [],
      `variable a is longer than ${MAX_VARIABLE_VALUE_LENGTH} characters`,
    ],
    [
      { address: '+4915112345678', variables: { a: 'bell\u0007' } },
      [],
      'variable a contains the control character U+0007',
    ],
    [
      {
        address: '+4915112345678',
        variables: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`v${i}`, 'x'])),
      },
      [],
      '51 variables; at most 50 are allowed',
    ],
  ])('rejects %j (template uses %j): %s', (recipient, required, reason) => {
    expect(validateRecipient(recipient, required, sms)).toEqual({ ok: false, reason });
  });

  it('refuses a variable that is not a string (data from outside TypeScript)', () => {
    const recipient = { address: '+4915112345678', variables: { n: 5 } } as unknown as { address: string };
    expect(validateRecipient(recipient, [], sms)).toEqual({
      ok: false,
      reason: 'variable n is not a string',
    });
  });
});
