import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Injectable } from '@nestjs/common';
import { isPublicAddress, NonPublicAddressError, UnavailableError } from '@ums/platform';
import { SubscriberErrorCode } from '@ums/contracts';

/** Every address a host name resolves to. */
export type AddressLookup = (hostname: string) => Promise<readonly { readonly address: string }[]>;

/** DNS answers meaning the name has no address (as opposed to DNS failing now). */
const NO_ADDRESS = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA']);

/**
 * Why a public subscriber's host is refused, or undefined when it is acceptable: an IP literal that is
 * not public (loopback, private, link-local such as 169.254.169.254, unique-local IPv6, ...; the
 * platform's SSRF rules), or a name with any non-public address. A name with no address yet is
 * accepted: it can point nowhere now, and every connection is checked again. Throws UnavailableError
 * when DNS fails for another reason (try again later).
 */
export async function hostAddressProblem(
  hostname: string,
  lookupAll: AddressLookup,
): Promise<string | undefined> {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) !== 0)
    return isPublicAddress(host) ? undefined : new NonPublicAddressError(host, host).message;
  let addresses: readonly { readonly address: string }[];
  try {
    addresses = await lookupAll(host);
  } catch (error: unknown) {
    const code = (error as NodeJS.ErrnoException).code ?? 'UNKNOWN';
    if (NO_ADDRESS.has(code)) return undefined;
    throw new UnavailableError(
      SubscriberErrorCode.UrlUnresolved,
      `url: ${host} could not be resolved now (${code})`,
    );
  }
  const refused = addresses.find((candidate) => !isPublicAddress(candidate.address));
  if (refused !== undefined) return new NonPublicAddressError(host, refused.address).message;
  return undefined;
}

/**
 * The address rule for public subscriber URLs, applied when a subscriber is created or its URL
 * changes: the same non-public ranges the SSRF-guarded agent refuses at connect time (which still
 * checks every connection, since a name can resolve differently later).
 */
@Injectable()
export class SubscriberAddresses {
  private readonly lookupAll: AddressLookup = (hostname) => lookup(hostname, { all: true, verbatim: true });

  problem(url: URL): Promise<string | undefined> {
    return hostAddressProblem(url.hostname, this.lookupAll);
  }
}
