import { Channel } from '@ums/contracts';
import { analyzeOptOutHeader, optOutChannel, optOutNormalizers, validateOptOutRow } from './opt-out-row';

describe('analyzeOptOutHeader', () => {
  it('finds channel, address and an optional source in any order and case, ignoring other columns', () => {
    expect(analyzeOptOutHeader([' Address ', 'createdAt', 'CHANNEL', 'source'])).toEqual({
      ok: true,
      layout: { channelIndex: 2, addressIndex: 0, sourceIndex: 3 },
    });
    expect(analyzeOptOutHeader(['channel', 'address'])).toEqual({
      ok: true,
      layout: { channelIndex: 0, addressIndex: 1, sourceIndex: undefined },
    });
  });

  it('names every problem', () => {
    expect(analyzeOptOutHeader(['phone', 'source', 'source'])).toEqual({
      ok: false,
      problems: ['no channel column', 'no address column', 'column source appears 2 times'],
    });
    expect(analyzeOptOutHeader(['channel', 'address', 'Address'])).toEqual({
      ok: false,
      problems: ['column address appears 2 times'],
    });
  });
});

describe('validateOptOutRow', () => {
  const layout = { channelIndex: 0, addressIndex: 1, sourceIndex: 2 };
  const international = optOutNormalizers();
  const row = (cells: string[]): ReturnType<typeof validateOptOutRow> =>
    validateOptOutRow(cells, layout, international, 'import');

  it('normalizes addresses as audiences do, so spellings of one number are one entry', () => {
    expect(row(['sms', '+49 151 1234 5678', ''])).toEqual({
      ok: true,
      channel: Channel.Sms,
      address: '+4915112345678',
      source: 'import',
    });
    expect(row([' WhatsApp ', '0049 (151) 12345678', 'crm'])).toMatchObject({
      address: '+4915112345678',
      channel: Channel.WhatsApp,
      source: 'crm',
    });
    expect(row(['email', ' Ana@Example.COM ', ''])).toMatchObject({ address: 'Ana@example.com' });
  });

  it('reads national numbers with a default country only', () => {
    expect(row(['sms', '0151 12345678', ''])).toEqual({
      ok: false,
      reason: 'phone number has no country code (start it with + or 00)',
    });
    expect(validateOptOutRow(['sms', '0151 12345678'], layout, optOutNormalizers('DE'), 'x')).toMatchObject({
      ok: true,
      address: '+4915112345678',
    });
  });

  it('reads back a cell an export protected from spreadsheets', () => {
    expect(row(['email', "'-x@example.org", ''])).toMatchObject({ ok: true, address: '-x@example.org' });
  });

  it.each([
    [['', '+4915112345678', ''], 'channel is empty'],
    [['fax', '+4915112345678', ''], 'channel must be one of whatsapp, sms, email, got "fax"'],
    [['sms', '', ''], 'phone number is empty'],
    [['sms'], 'phone number is empty'],
    [['sms', 'ana@example.com', ''], 'phone number contains letters'],
    [['email', '+4915112345678', ''], 'e-mail address has no @'],
    [['sms', '+4915112345678', 'x'.repeat(65)], 'source is longer than 64 characters'],
    [['sms', '+4915112345678', 'a\u0007b'], 'source contains the control character U+0007'],
  ])('refuses %p: %s', (cells, reason) => {
    expect(row(cells)).toEqual({ ok: false, reason });
  });
});

describe('optOutChannel', () => {
  it('reads a channel in any case', () => {
    expect(optOutChannel(' SMS')).toEqual({ ok: true, channel: Channel.Sms });
    expect(optOutChannel('pigeon').ok).toBe(false);
  });
});
