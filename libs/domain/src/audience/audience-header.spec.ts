import { Channel } from '@ums/contracts';
import { analyzeAudienceHeader, MAX_VARIABLE_COLUMNS } from './audience-header';

describe('analyzeAudienceHeader', () => {
  it('finds the address column and makes every other column a variable', () => {
    expect(analyzeAudienceHeader(['first_name', ' Phone ', 'city'], Channel.Sms, ['first_name'])).toEqual({
      ok: true,
      layout: {
        columnCount: 3,
        addressIndex: 1,
        variableColumns: [
          { name: 'first_name', index: 0, required: true },
          { name: 'city', index: 2, required: false },
        ],
        requiredVariables: ['first_name'],
      },
    });
  });

  it.each(['phone', 'PHONE_NUMBER', 'Mobile', 'msisdn', 'address'])(
    'accepts %s as the address column of a phone channel',
    (name) => {
      const result = analyzeAudienceHeader([name], Channel.WhatsApp, []);
      expect(result).toMatchObject({ ok: true, layout: { addressIndex: 0, variableColumns: [] } });
    },
  );

  it.each(['email', 'Email_Address', 'ADDRESS'])('accepts %s as the address column of e-mail', (name) => {
    const result = analyzeAudienceHeader(['name', name], Channel.Email, []);
    expect(result).toMatchObject({ ok: true, layout: { addressIndex: 1 } });
  });

  it('treats the other channel kind of address column as a variable', () => {
    expect(analyzeAudienceHeader(['email', 'phone'], Channel.Sms, [])).toMatchObject({
      ok: true,
      layout: { addressIndex: 1, variableColumns: [{ name: 'email', index: 0, required: false }] },
    });
    expect(analyzeAudienceHeader(['email', 'phone'], Channel.Email, [])).toMatchObject({
      ok: true,
      layout: { addressIndex: 0, variableColumns: [{ name: 'phone', index: 1, required: false }] },
    });
  });

  it('refuses a header without an address column', () => {
    expect(analyzeAudienceHeader(['name', 'email'], Channel.Sms, [])).toEqual({
      ok: false,
      code: 'AUDIENCE_HEADER_INVALID',
      problems: ['no address column: expected one of phone, phone_number, mobile, msisdn, address'],
    });
    expect(analyzeAudienceHeader(['phone'], Channel.Email, [])).toEqual({
      ok: false,
      code: 'AUDIENCE_HEADER_INVALID',
      problems: ['no address column: expected one of email, email_address, address'],
    });
  });

  it('refuses two address columns', () => {
    expect(analyzeAudienceHeader(['phone', 'name', 'Mobile'], Channel.Sms, [])).toEqual({
      ok: false,
      code: 'AUDIENCE_HEADER_INVALID',
      problems: ['more than one address column: phone, Mobile'],
    });
  });

  it('refuses duplicate, unnamed and invalid column names, reporting all of them', () => {
    const result = analyzeAudienceHeader(
      ['phone', 'name', 'name', 'City', 'city', '', 'first name', '1st', 'PHONE'],
      Channel.Sms,
      ['name'],
    );
    expect(result).toEqual({
      ok: false,
      code: 'AUDIENCE_HEADER_INVALID',
      problems: [
        'column "name" appears more than once',
        'columns "City" and "city" differ only in case',
        'column 6 has no name',
        'column "first name" is not a valid variable name (a letter or _ then letters, digits, _ . or -, at most 64 characters)',
        'column "1st" is not a valid variable name (a letter or _ then letters, digits, _ . or -, at most 64 characters)',
        'columns "phone" and "PHONE" differ only in case',
      ],
    });
  });

  it(`refuses more than ${MAX_VARIABLE_COLUMNS} variable columns`, () => {
    const names = Array.from({ length: MAX_VARIABLE_COLUMNS + 1 }, (_, i) => `v${i}`);
    expect(analyzeAudienceHeader(['phone', ...names], Channel.Sms, [])).toEqual({
      ok: false,
      code: 'AUDIENCE_HEADER_INVALID',
      problems: [`${MAX_VARIABLE_COLUMNS + 1} variable columns; at most ${MAX_VARIABLE_COLUMNS} are allowed`],
    });
    expect(analyzeAudienceHeader(['phone', ...names.slice(1)], Channel.Sms, []).ok).toBe(true);
  });

  it('lists the template variables that have no column (case matters)', () => {
    expect(
      analyzeAudienceHeader(['phone', 'First_Name'], Channel.Sms, ['first_name', 'First_Name', 'city']),
    ).toEqual({ ok: false, code: 'AUDIENCE_COLUMNS_MISSING', missing: ['first_name', 'city'] });
  });

  it('does not count the address column as a template variable', () => {
    expect(analyzeAudienceHeader(['phone'], Channel.Sms, ['phone'])).toEqual({
      ok: false,
      code: 'AUDIENCE_COLUMNS_MISSING',
      missing: ['phone'],
    });
  });

  it('checks the header before the template columns', () => {
    expect(analyzeAudienceHeader(['name'], Channel.Sms, ['first_name'])).toMatchObject({
      ok: false,
      code: 'AUDIENCE_HEADER_INVALID',
    });
  });
});
