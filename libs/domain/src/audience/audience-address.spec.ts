import { Channel } from '@ums/contracts';
import {
  AddressKind,
  addressKindOf,
  addressNormalizerFor,
  normalizeEmail,
  normalizePhone,
  phoneCountry,
} from './audience-address';

describe('normalizePhone', () => {
  it.each([
    ['+4915112345678', undefined, '+4915112345678'],
    ['+49 151 12345678', undefined, '+4915112345678'],
    ['+49-151-1234-5678', undefined, '+4915112345678'],
    ['+49 (151) 1234 5678', undefined, '+4915112345678'],
    ['+49.151.12345678', undefined, '+4915112345678'],
    ['+49/151/12345678', undefined, '+4915112345678'],
    ['  +49 151 12345678  ', undefined, '+4915112345678'],
    ['+49\u00a0151\u00a012345678', undefined, '+4915112345678'],
    ['004915112345678', undefined, '+4915112345678'],
    ['00 49 151 12345678', undefined, '+4915112345678'],
    ['004915112345678', 'DE', '+4915112345678'],
    ['0151 12345678', 'DE', '+4915112345678'],
    ['(0151) 1234-5678', 'DE', '+4915112345678'],
    ['030 1234567', 'DE', '+49301234567'],
    ['+44 7911 123456', 'DE', '+447911123456'],
    ['(202) 555-0123', 'US', '+12025550123'],
    ['+1 202 555 0123', undefined, '+12025550123'],
    ['07911 123456', 'GB', '+447911123456'],
  ] as const)('normalizes %j (default %s) to %s', (raw, country, expected) => {
    expect(normalizePhone(raw, country)).toEqual({ ok: true, address: expected });
  });

  it.each([
    ['', undefined, 'phone number is empty'],
    ['   ', 'DE', 'phone number is empty'],
    ['+49 151 CALLME', undefined, 'phone number contains letters'],
    ['0800 FLOWERS', 'DE', 'phone number contains letters'],
    ['+49 151 1234567x', undefined, 'phone number contains letters'],
    ['+49#15112345678', undefined, 'phone number contains invalid characters'],
    ['+49 151 12345678;', undefined, 'phone number contains invalid characters'],
    ['0151 12345678', undefined, 'phone number has no country code (start it with + or 00)'],
    ['15112345678', undefined, 'phone number has no country code (start it with + or 00)'],
    ['+999 1234567', undefined, 'phone number has an unknown country code'],
    ['+', undefined, 'not a phone number'],
    ['+49 151 123', undefined, 'not a valid DE phone number'],
    ['+49 30', undefined, 'phone number is too short for DE'],
    ['+49 3', undefined, 'phone number is too short'],
    ['0151 1234567', 'DE', 'not a valid DE phone number'],
    ['0151 123456789', 'DE', 'not a valid DE phone number'],
    ['+49 151 1234567890123456', undefined, 'phone number is too long'],
    ['+1 202 555 012', undefined, 'phone number is too short for +1'],
    ['+1 123 555 0123', undefined, 'not a valid +1 phone number'],
    ['+44 7911 12345', undefined, 'not a valid +44 phone number'],
    ['+49 151 12+345678', undefined, 'not a phone number'],
  ] as const)('refuses %j (default %s): %s', (raw, country, reason) => {
    expect(normalizePhone(raw, country)).toEqual({ ok: false, reason });
  });
});

describe('normalizeEmail', () => {
  it.each([
    ['anna@example.com', 'anna@example.com'],
    ['  anna@example.com  ', 'anna@example.com'],
    ['Anna.Berg@Example.COM', 'Anna.Berg@example.com'],
    ['anna+news@example.com', 'anna+news@example.com'],
    ['anna+news+2024@example.co.uk', 'anna+news+2024@example.co.uk'],
    ["o'brien@example.ie", "o'brien@example.ie"],
    ['user@bücher.de', 'user@xn--bcher-kva.de'],
    ['user@BÜCHER.DE', 'user@xn--bcher-kva.de'],
    ['user@xn--bcher-kva.de', 'user@xn--bcher-kva.de'],
    ['jörg@example.com', 'jörg@example.com'],
    ['user@mail.sub.example.org', 'user@mail.sub.example.org'],
  ])('normalizes %j to %s', (raw, expected) => {
    expect(normalizeEmail(raw)).toEqual({ ok: true, address: expected });
  });

  it.each([
    ['', 'e-mail address is empty'],
    ['   ', 'e-mail address is empty'],
    ['anna.example.com', 'e-mail address has no @'],
    ['@example.com', 'e-mail address has nothing before the @'],
    ['anna@', 'e-mail address has no domain'],
    ['anna@example.com.', 'e-mail domain ends with a dot'],
    ['anna@localhost', 'e-mail address is not valid'],
    ['anna@example', 'e-mail address is not valid'],
    ['anna@exa mple.com', 'e-mail domain is not valid'],
    ['anna@@example.com', 'e-mail address is not valid'],
    ['anna.@example.com', 'e-mail address is not valid'],
    ['an..na@example.com', 'e-mail address is not valid'],
    ['anna@127.0.0.1', 'e-mail address is not valid'],
    ['anna@-example.com', 'e-mail address is not valid'],
    [`${'a'.repeat(65)}@example.com`, 'e-mail address is not valid'],
    [`anna@${'a'.repeat(250)}.com`, 'e-mail address is longer than 254 characters'],
  ])('refuses %j: %s', (raw, reason) => {
    expect(normalizeEmail(raw)).toEqual({ ok: false, reason });
  });
});

describe('addressKindOf / addressNormalizerFor / phoneCountry', () => {
  it('sends WhatsApp and SMS to phones and e-mail to mailboxes', () => {
    expect(addressKindOf(Channel.WhatsApp)).toBe(AddressKind.Phone);
    expect(addressKindOf(Channel.Sms)).toBe(AddressKind.Phone);
    expect(addressKindOf(Channel.Email)).toBe(AddressKind.Email);
  });

  it('normalizes by channel, with the default country for national numbers', () => {
    expect(addressNormalizerFor(Channel.Sms, 'DE')('0151 12345678')).toEqual({
      ok: true,
      address: '+4915112345678',
    });
    expect(addressNormalizerFor(Channel.WhatsApp)('0151 12345678').ok).toBe(false);
    expect(addressNormalizerFor(Channel.Email)('A@B.example')).toEqual({ ok: true, address: 'A@b.example' });
    expect(addressNormalizerFor(Channel.Email)('+4915112345678').ok).toBe(false);
  });

  it('accepts supported ISO country codes in any case and refuses others', () => {
    expect(phoneCountry('DE')).toBe('DE');
    expect(phoneCountry(' de ')).toBe('DE');
    expect(phoneCountry('XX')).toBeUndefined();
    expect(phoneCountry('')).toBeUndefined();
  });
});
