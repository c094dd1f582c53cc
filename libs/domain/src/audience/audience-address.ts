import { domainToASCII } from 'node:url';
import { Channel } from '@ums/contracts';
import { isEmail } from 'class-validator';
// 'max' metadata, measured against 'min' on this machine: parse + isValid of German numbers ran at about
// 50-60k/s with max versus 80-110k/s with min, but min validates by the country's overall lengths only
// and so accepted '+49 151 123' and DE mobiles one digit short or long ('0151 1234567', '0151 123456789');
// max checks the per-type patterns and lengths and refuses them. Sending to a number that cannot exist
// costs more than the extra microseconds, so correctness wins.
import {
  type CountryCode,
  isSupportedCountry,
  ParseError,
  parsePhoneNumberWithError,
  validatePhoneNumberLength,
} from 'libphonenumber-js/max';

export type AddressResult =
  { readonly ok: true; readonly address: string } | { readonly ok: false; readonly reason: string };

/** Turns one raw address cell into the stored form (E.164 or a normalized e-mail), or says why not. */
export type AddressNormalizer = (raw: string) => AddressResult;

export enum AddressKind {
  Phone = 'phone',
  Email = 'email',
}

/** The channel decides what an address is: WhatsApp and SMS send to phones, e-mail to mailboxes. */
export function addressKindOf(channel: Channel): AddressKind {
  switch (channel) {
    case Channel.WhatsApp:
    case Channel.Sms:
      return AddressKind.Phone;
    case Channel.Email:
      return AddressKind.Email;
  }
}

/** The libphonenumber country for an ISO 3166-1 alpha-2 code (any case), or undefined if unsupported. */
export function phoneCountry(code: string): CountryCode | undefined {
  const upper = code.trim().toUpperCase();
  return isSupportedCountry(upper) ? upper : undefined;
}

const LETTERS = /[A-Za-z]/;
// Digits and the punctuation people write numbers with; anything else is not a phone number.
const PHONE_CHARACTERS = /^[0-9+\s().\-/]+$/;
const LEADING_IDD_00 = /^00/;

const PARSE_REASONS: Readonly<Record<string, string>> = {
  INVALID_COUNTRY: 'phone number has an unknown country code',
  NOT_A_NUMBER: 'not a phone number',
  TOO_SHORT: 'phone number is too short',
  TOO_LONG: 'phone number is too long',
  INVALID_LENGTH: 'phone number has an invalid length',
};

/**
 * A phone number in E.164 (`+4915112345678`). Numbers without a country code (national format) need a
 * default country; a leading 00 is read as the international prefix, as in most of the world.
 */
export function normalizePhone(raw: string, defaultCountry?: CountryCode): AddressResult {
  const trimmed = raw.trim();
  if (trimmed === '') return { ok: false, reason: 'phone number is empty' };
  if (LETTERS.test(trimmed)) return { ok: false, reason: 'phone number contains letters' };
  if (!PHONE_CHARACTERS.test(trimmed))
    return { ok: false, reason: 'phone number contains invalid characters' };
  const text = LEADING_IDD_00.test(trimmed) ? `+${trimmed.slice(2)}` : trimmed;
  if (!text.startsWith('+') && defaultCountry === undefined) {
    return { ok: false, reason: 'phone number has no country code (start it with + or 00)' };
  }
  const options = { defaultCountry, extract: false };
  let parsed;
  try {
    parsed = parsePhoneNumberWithError(text, options);
  } catch (error: unknown) {
    if (error instanceof ParseError) {
      return { ok: false, reason: PARSE_REASONS[error.message] ?? 'not a phone number' };
    }
    throw error;
  }
  if (parsed.isValid()) return { ok: true, address: parsed.number };
  const where = parsed.country ?? `+${parsed.countryCallingCode}`;
  switch (validatePhoneNumberLength(text, options)) {
    case 'TOO_SHORT':
      return { ok: false, reason: `phone number is too short for ${where}` };
    case 'TOO_LONG':
      return { ok: false, reason: `phone number is too long for ${where}` };
    case 'INVALID_LENGTH':
      return { ok: false, reason: `phone number has an invalid length for ${where}` };
    default:
      return { ok: false, reason: `not a valid ${where} phone number` };
  }
}

const MAX_EMAIL_LENGTH = 254;

/**
 * An e-mail address with its domain lower-cased and in ASCII (IDN domains as punycode, so that
 * `bücher.de` and `xn--bcher-kva.de` are the same recipient). The local part is kept as written:
 * it may be case-sensitive, and plus tags (`a+news@x.org`) are distinct mailboxes.
 */
export function normalizeEmail(raw: string): AddressResult {
  const trimmed = raw.trim();
  if (trimmed === '') return { ok: false, reason: 'e-mail address is empty' };
  const at = trimmed.lastIndexOf('@');
  if (at === -1) return { ok: false, reason: 'e-mail address has no @' };
  const local = trimmed.slice(0, at);
  const domain = trimmed.slice(at + 1);
  if (local === '') return { ok: false, reason: 'e-mail address has nothing before the @' };
  if (domain === '') return { ok: false, reason: 'e-mail address has no domain' };
  if (domain.endsWith('.')) return { ok: false, reason: 'e-mail domain ends with a dot' };
  const asciiDomain = domainToASCII(domain);
  if (asciiDomain === '') return { ok: false, reason: 'e-mail domain is not valid' };
  const address = `${local}@${asciiDomain}`;
  if (address.length > MAX_EMAIL_LENGTH) {
    return { ok: false, reason: `e-mail address is longer than ${MAX_EMAIL_LENGTH} characters` };
  }
  if (!isEmail(address, { allow_utf8_local_part: true, require_tld: true, allow_ip_domain: false })) {
    return { ok: false, reason: 'e-mail address is not valid' };
  }
  return { ok: true, address };
}

/** The normalizer for a campaign: by its channel, with its default country for national phone numbers. */
export function addressNormalizerFor(channel: Channel, defaultCountry?: CountryCode): AddressNormalizer {
  return addressKindOf(channel) === AddressKind.Phone
    ? (raw) => normalizePhone(raw, defaultCountry)
    : normalizeEmail;
}
