import type { IncomingMessage } from 'node:http';
import { ConfigValidationError } from '../config/config-loader';
import { parseCidr, TrustedProxies } from './trusted-proxies';

/** A request as a socket from `peer` delivers it. */
function requestFrom(peer: string, headers: Record<string, string>, encrypted = false): IncomingMessage {
  return { socket: { remoteAddress: peer, encrypted }, headers } as unknown as IncomingMessage;
}

const FORWARDED = {
  host: 'ingest:3003',
  'x-forwarded-for': '198.51.100.1, 203.0.113.9, 10.0.0.7',
  'x-forwarded-proto': 'https',
  'x-forwarded-host': 'hooks.example.com',
};

describe('parseCidr', () => {
  it('reads addresses and CIDRs of both families', () => {
    expect(parseCidr('10.0.0.0/8')).toEqual({ family: 'ipv4', network: '10.0.0.0', prefix: 8 });
    expect(parseCidr('192.0.2.7')).toEqual({ family: 'ipv4', network: '192.0.2.7', prefix: 32 });
    expect(parseCidr('fd00::/8')).toEqual({ family: 'ipv6', network: 'fd00::', prefix: 8 });
  });

  it('refuses what is neither', () => {
    for (const bad of [
      '10.0.0.0/33',
      'fd00::/129',
      '10.0.0/8',
      'proxy.local',
      '10.0.0.0/',
      '10.0.0.0/x',
      '',
    ]) {
      expect([bad, parseCidr(bad)]).toEqual([bad, undefined]);
    }
  });
});

describe('TrustedProxies', () => {
  it('trusts no one when empty: the socket is the client, forwarded headers ignored', () => {
    const none = TrustedProxies.fromEnv({});
    expect(none.trusts('127.0.0.1')).toBe(false);
    expect(none.clientOf(requestFrom('10.0.0.9', FORWARDED))).toEqual({
      ip: '10.0.0.9',
      protocol: 'http',
      host: 'ingest:3003',
    });
    expect(none.clientOf(requestFrom('10.0.0.9', FORWARDED, true)).protocol).toBe('https');
  });

  it('believes a trusted peer, walking X-Forwarded-For back through trusted hops only', () => {
    const proxies = TrustedProxies.fromEnv({ TRUSTED_PROXY_CIDRS: '10.0.0.0/8, fd00::/8' });
    expect(proxies.clientOf(requestFrom('10.0.0.9', FORWARDED))).toEqual({
      ip: '203.0.113.9',
      protocol: 'https',
      host: 'hooks.example.com',
    });
    // An IPv4 peer as a dual-stack socket shows it.
    expect(proxies.trusts('::ffff:10.1.2.3')).toBe(true);
    expect(proxies.trusts('fd12::1')).toBe(true);
    expect(proxies.trusts('11.0.0.1')).toBe(false);
    expect(proxies.clientOf(requestFrom('11.0.0.1', FORWARDED)).ip).toBe('11.0.0.1');
  });

  it('takes the last value of a repeated header, and only http or https as the protocol', () => {
    const proxies = new TrustedProxies(['10.0.0.9']);
    const req = requestFrom('10.0.0.9', {
      host: 'ingest:3003',
      'x-forwarded-proto': 'https, gopher',
      'x-forwarded-host': 'evil.example.com, hooks.example.com',
    });
    expect(proxies.clientOf(req)).toEqual({ ip: '10.0.0.9', protocol: 'http', host: 'hooks.example.com' });
  });

  it('stops start-up on a bad entry, naming the variable', () => {
    expect(() => TrustedProxies.fromEnv({ TRUSTED_PROXY_CIDRS: '10.0.0.0/8,proxy.local' })).toThrow(
      ConfigValidationError,
    );
    expect(() => TrustedProxies.fromEnv({ TRUSTED_PROXY_CIDRS: '10.0.0.0/40' })).toThrow(
      /TRUSTED_PROXY_CIDRS/,
    );
  });
});
