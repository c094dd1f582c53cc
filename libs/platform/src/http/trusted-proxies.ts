import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';
import { Expose } from 'class-transformer';
import { IsArray, ValidateBy, type ValidationOptions } from 'class-validator';
import { loadConfig } from '../config/config-loader';
import { type EnvSource, processEnv } from '../config/env-source';
import { ToList } from '../config/env-transforms';

/** An address or CIDR (`10.0.0.0/8`, `fd00::/8`, `192.0.2.7`) as family, network and prefix length. */
export function parseCidr(
  text: string,
): { family: 'ipv4' | 'ipv6'; network: string; prefix: number } | undefined {
  const slash = text.indexOf('/');
  const network = slash === -1 ? text : text.slice(0, slash);
  const version = isIP(network);
  if (version === 0) return undefined;
  const bits = version === 4 ? 32 : 128;
  if (slash === -1) return { family: version === 4 ? 'ipv4' : 'ipv6', network, prefix: bits };
  const prefixText = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > bits) return undefined;
  return { family: version === 4 ? 'ipv4' : 'ipv6', network, prefix: Number(prefixText) };
}

const IsCidr = (options?: ValidationOptions): PropertyDecorator =>
  ValidateBy(
    {
      name: 'isCidr',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && parseCidr(value) !== undefined,
        defaultMessage: () =>
          'TRUSTED_PROXY_CIDRS entries must be IP addresses or CIDRs (10.0.0.0/8, fd00::/8, 192.0.2.7)',
      },
    },
    options,
  );

export class TrustedProxyConfig {
  /**
   * Peers whose `X-Forwarded-For`, `X-Forwarded-Proto` and `X-Forwarded-Host` are believed (the
   * ingress or load balancer in front of the service): a comma list of addresses and CIDRs. Empty:
   * no peer is trusted, and every request is taken as the socket shows it.
   */
  @Expose() @ToList() @IsArray() @IsCidr({ each: true }) TRUSTED_PROXY_CIDRS: string[] = [];
}

/** Who called, as far as the trusted proxies vouch for it. */
export interface ClientOrigin {
  /** The client's address: the socket peer, or the nearest address a trusted proxy forwarded for. */
  readonly ip: string;
  readonly protocol: 'http' | 'https';
  /** The host the client called (Host, or a trusted proxy's X-Forwarded-Host). */
  readonly host: string;
}

/**
 * The platform's one rule for forwarded headers: `X-Forwarded-*` count only when the socket peer is in
 * TRUSTED_PROXY_CIDRS. Fastify's `trustProxy` and the fast routes both use it. Where a header was
 * set more than once, the last value (the one the nearest proxy wrote) wins, as in Fastify.
 */
export class TrustedProxies {
  private readonly list = new BlockList();
  private readonly empty: boolean;

  constructor(cidrs: readonly string[]) {
    for (const cidr of cidrs) {
      const parsed = parseCidr(cidr);
      if (parsed === undefined) throw new RangeError(`not an address or CIDR: ${cidr}`);
      this.list.addSubnet(parsed.network, parsed.prefix, parsed.family);
    }
    this.empty = cidrs.length === 0;
  }

  /** From TRUSTED_PROXY_CIDRS, validated (a bad entry stops start-up naming the variable). */
  static fromEnv(env: EnvSource = processEnv()): TrustedProxies {
    return new TrustedProxies(loadConfig(TrustedProxyConfig, env).TRUSTED_PROXY_CIDRS);
  }

  trusts(address: string | undefined): boolean {
    if (this.empty || address === undefined) return false;
    const version = isIP(address);
    return version !== 0 && this.list.check(address, version === 4 ? 'ipv4' : 'ipv6');
  }

  /** For Fastify's `trustProxy` option: the same rule for every hop. */
  readonly fastifyRule = (address: string): boolean => this.trusts(address);

  clientOf(req: IncomingMessage): ClientOrigin {
    const peer = req.socket.remoteAddress ?? '';
    const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
    const own = {
      protocol: encrypted ? ('https' as const) : ('http' as const),
      host: req.headers.host ?? '',
    };
    if (!this.trusts(peer)) return { ip: peer, ...own };
    const proto = lastValue(req.headers['x-forwarded-proto'])?.toLowerCase();
    const host = lastValue(req.headers['x-forwarded-host']);
    return {
      ip: this.forwardedClient(peer, req.headers['x-forwarded-for']),
      protocol: proto === 'https' || proto === 'http' ? proto : own.protocol,
      host: host === undefined || host === '' ? own.host : host,
    };
  }

  /** Walks X-Forwarded-For from the nearest hop back while each hop is a trusted proxy. */
  private forwardedClient(peer: string, header: string | string[] | undefined): string {
    const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
      .split(',')
      .map((hop) => hop.trim())
      .filter((hop) => hop !== '');
    let client = peer;
    for (let i = hops.length - 1; i >= 0 && this.trusts(client); i--) client = hops[i] ?? client;
    return client;
  }
}

function lastValue(value: string | string[] | undefined): string | undefined {
  const joined = Array.isArray(value) ? value.join(',') : value;
  if (joined === undefined) return undefined;
  const comma = joined.lastIndexOf(',');
  return (comma === -1 ? joined : joined.slice(comma + 1)).trim();
}
