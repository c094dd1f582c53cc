import { Channel } from '@ums/contracts';
import { type AddressNormalizer, addressNormalizerFor } from '../audience/audience-address';
import { findControlCharacter } from '../text/text-rules';
import type { CountryCode } from 'libphonenumber-js/max';

/** Longest `source` an opt-out keeps (the column's width). */
export const MAX_OPT_OUT_SOURCE_LENGTH = 64;

const CHANNELS: readonly string[] = Object.values(Channel);

/** Where the columns of an opt-out file are: channel and address required, source optional. */
export interface OptOutLayout {
  readonly channelIndex: number;
  readonly addressIndex: number;
  readonly sourceIndex: number | undefined;
}

export type OptOutHeaderAnalysis =
  | { readonly ok: true; readonly layout: OptOutLayout }
  | { readonly ok: false; readonly problems: readonly string[] };

/**
 * Reads the header row of an opt-out file: `channel` and `address` once each, `source` at most
 * once (names trimmed, any case). Other columns are ignored, so an export (which adds `createdAt`)
 * imports as it is.
 */
export function analyzeOptOutHeader(cells: readonly string[]): OptOutHeaderAnalysis {
  const names = cells.map((cell) => cell.trim().toLowerCase());
  const problems: string[] = [];
  const find = (name: string, required: boolean): number | undefined => {
    const hits = names.flatMap((n, i) => (n === name ? [i] : []));
    if (hits.length > 1) problems.push(`column ${name} appears ${hits.length} times`);
    if (hits.length === 0 && required) problems.push(`no ${name} column`);
    return hits[0];
  };
  const channelIndex = find('channel', true);
  const addressIndex = find('address', true);
  const sourceIndex = find('source', false);
  if (problems.length > 0 || channelIndex === undefined || addressIndex === undefined) {
    return { ok: false, problems };
  }
  return { ok: true, layout: { channelIndex, addressIndex, sourceIndex } };
}

export interface OptOutEntry {
  readonly channel: Channel;
  readonly address: string;
  readonly source: string;
}

export type OptOutRowVerdict =
  ({ readonly ok: true } & OptOutEntry) | { readonly ok: false; readonly reason: string };

/** The address normalizer of each channel (audience rules), with a default country for national numbers. */
export function optOutNormalizers(defaultCountry?: CountryCode): ReadonlyMap<Channel, AddressNormalizer> {
  return new Map(Object.values(Channel).map((c) => [c, addressNormalizerFor(c, defaultCountry)]));
}

// Exports prefix a cell a spreadsheet would run as a formula with a quote (see neutralizeFormula):
// read back, the quote goes, so an export imports as it was.
const NEUTRALIZED = /^'[=+\-@\t\r]/;

/** The channel of a cell (trimmed, any case), or why not. */
export function optOutChannel(raw: string): { ok: true; channel: Channel } | { ok: false; reason: string } {
  const channel = raw.trim().toLowerCase();
  if (channel === '') return { ok: false, reason: 'channel is empty' };
  if (!CHANNELS.includes(channel)) {
    return {
      ok: false,
      reason: `channel must be one of ${CHANNELS.join(', ')}, got ${JSON.stringify(channel.slice(0, 32))}`,
    };
  }
  return { ok: true, channel: channel as Channel };
}

/**
 * One data row of an opt-out file: a known channel, an address its channel's normalizer accepts
 * (stored as contacts are: E.164, or the e-mail with its domain lower-cased), and a source of at most
 * 64 characters without control characters (`defaultSource` when the column is absent or blank).
 */
export function validateOptOutRow(
  cells: readonly string[],
  layout: OptOutLayout,
  normalizers: ReadonlyMap<Channel, AddressNormalizer>,
  defaultSource: string,
): OptOutRowVerdict {
  const channel = optOutChannel(cells[layout.channelIndex] ?? '');
  if (!channel.ok) return channel;
  const rawAddress = (cells[layout.addressIndex] ?? '').trim();
  const normalize = normalizers.get(channel.channel) as AddressNormalizer;
  const address = normalize(NEUTRALIZED.test(rawAddress) ? rawAddress.slice(1) : rawAddress);
  if (!address.ok) return address;
  const rawSource = layout.sourceIndex === undefined ? '' : (cells[layout.sourceIndex] ?? '').trim();
  const source = rawSource === '' ? defaultSource : rawSource;
  if (source.length > MAX_OPT_OUT_SOURCE_LENGTH) {
    return { ok: false, reason: `source is longer than ${MAX_OPT_OUT_SOURCE_LENGTH} characters` };
  }
  const control = findControlCharacter(source);
  if (control !== undefined) return { ok: false, reason: `source contains the control character ${control}` };
  return { ok: true, channel: channel.channel, address: address.address, source };
}
