import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { HttpErrorCode } from '@ums/contracts';
import { CodedError } from '../errors/coded-error';

/*
 * SSRF protection for outgoing requests to URLs that users give us (audience files, subscriber
 * webhooks): only globally reachable unicast addresses may be contacted. The check runs on the
 * addresses DNS actually returned, inside the connection's own lookup, so a name cannot resolve to
 * a public address for a check and to a private one for the connection (DNS rebinding).
 */

// IANA special-purpose IPv4 blocks, multicast and reserved space (RFC 6890 and its registry).
const NON_PUBLIC_IPV4: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

const NON_PUBLIC_IPV6: readonly (readonly [string, number])[] = [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible range
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID, benchmarking...)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: embeds an IPv4 address we cannot vouch for
  ['3fff::', 20], // documentation
  ['5f00::', 16], // SRv6 SIDs
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // deprecated site-local
  ['ff00::', 8], // multicast
];

const BLOCKED = buildBlockList();

function buildBlockList(): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of NON_PUBLIC_IPV4) {
    list.addSubnet(network, prefix, 'ipv4');
    // The same IPv4 ranges reached through IPv4-mapped and well-known NAT64 IPv6 addresses.
    list.addSubnet(`::ffff:${network}`, 96 + prefix, 'ipv6');
    list.addSubnet(`64:ff9b::${network}`, 96 + prefix, 'ipv6');
  }
  for (const [network, prefix] of NON_PUBLIC_IPV6) list.addSubnet(network, prefix, 'ipv6');
  return list;
}

/**
 * True for a globally reachable unicast IP address; false for loopback, private, link-local,
 * shared, multicast, documentation and reserved ranges (IPv4 and IPv6), and for anything that is
 * not an IP address at all.
 */
export function isPublicAddress(ip: string): boolean {
  // A zone index (fe80::1%eth0) only ever qualifies link-local addresses, which are refused anyway.
  const address = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const family = isIP(address);
  if (family === 0) return false;
  return !BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** An outgoing connection refused because the host is, or resolves to, a non-public address. */
export class NonPublicAddressError extends CodedError {
  constructor(
    readonly hostname: string,
    readonly address: string,
  ) {
    super(
      HttpErrorCode.AddressNotPublic,
      hostname === address
        ? `${address} is not a public address`
        : `${hostname} resolves to ${address}, which is not a public address`,
    );
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A drop-in for dns.lookup (as net.connect calls it) that fails when any address of the name is
 * not public; refusing on any, not just the first, closes the door on answers mixing both.
 */
export function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) {
      callback(error, []);
      return;
    }
    const refused = addresses.find((candidate) => !isPublicAddress(candidate.address));
    if (refused !== undefined) {
      callback(new NonPublicAddressError(hostname, refused.address) as NodeJS.ErrnoException, []);
      return;
    }
    const first = addresses[0];
    if (options.all === true) callback(null, addresses);
    else if (first === undefined) callback(new Error(`${hostname} has no address`), []);
    else callback(null, first.address, first.family);
  });
}

export interface OutboundAgentOptions {
  /** TCP (and TLS) connect timeout. */
  readonly connectTimeoutMs: number;
  /** Time to wait for the response headers. */
  readonly headersTimeoutMs: number;
  /** Longest silence between two chunks of the response body. */
  readonly bodyTimeoutMs: number;
  /** Keep-alive connections per origin (default undici's: unlimited). */
  readonly connections?: number;
}

/**
 * An undici connector (the `connect` option of an Agent, Pool or Client) that connects only to
 * public addresses: IP-literal hosts are checked before connecting (net.connect skips the lookup
 * for them), names through publicOnlyLookup. A refusal fails the request with ADDRESS_NOT_PUBLIC.
 */
export function publicOnlyConnector(connectTimeoutMs: number): buildConnector.connector {
  const connector = buildConnector({ timeout: connectTimeoutMs, lookup: publicOnlyLookup });
  return (connectOptions, callback) => {
    const host = connectOptions.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host) !== 0 && !isPublicAddress(host)) {
      callback(new NonPublicAddressError(host, host), null);
      return;
    }
    connector(connectOptions, callback);
  };
}

/**
 * An undici Agent that connects only to public addresses: IP-literal hosts are checked before
 * connecting (net.connect skips the lookup for them), names through publicOnlyLookup. Redirects are
 * never followed by undici's request/Agent unless an interceptor says so, so a 3xx cannot lead a
 * request to a private address either.
 */
export function createPublicOnlyAgent(options: OutboundAgentOptions): Agent {
  return new Agent({
    connect: publicOnlyConnector(options.connectTimeoutMs),
    headersTimeout: options.headersTimeoutMs,
    bodyTimeout: options.bodyTimeoutMs,
    ...(options.connections !== undefined ? { connections: options.connections } : {}),
  });
}

/** The same Agent settings without the address check, for deployments that allow internal hosts. */
export function createOutboundAgent(options: OutboundAgentOptions): Agent {
  return new Agent({
    connect: { timeout: options.connectTimeoutMs },
    headersTimeout: options.headersTimeoutMs,
    bodyTimeout: options.bodyTimeoutMs,
    ...(options.connections !== undefined ? { connections: options.connections } : {}),
  });
}
