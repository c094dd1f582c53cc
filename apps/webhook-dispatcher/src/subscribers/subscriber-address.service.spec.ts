import { UnavailableError } from '@ums/platform';
import { type AddressLookup, hostAddressProblem } from './subscriber-address.service';

const resolvesTo =
  (...addresses: string[]): AddressLookup =>
  () =>
    Promise.resolve(addresses.map((address) => ({ address })));
const failsWith =
  (code: string): AddressLookup =>
  () =>
    Promise.reject(Object.assign(new Error(`lookup failed: ${code}`), { code }));
const noLookup: AddressLookup = () => Promise.reject(new Error('an IP literal is not looked up'));

/** The host part as the service gets it: from the WHATWG URL parser, which normalises IPv4 forms. */
const hostOf = (url: string): string => new URL(url).hostname;

describe('hostAddressProblem', () => {
  it.each([
    ['link-local metadata', 'https://169.254.169.254/latest/meta-data', '169.254.169.254'],
    ['loopback', 'https://127.0.0.1:8443/hook', '127.0.0.1'],
    ['loopback as a decimal number', 'https://2130706433/hook', '127.0.0.1'],
    ['loopback in hex', 'https://0x7f.1/hook', '127.0.0.1'],
    ['private 10/8', 'https://10.1.2.3/hook', '10.1.2.3'],
    ['private 172.16/12', 'https://172.31.0.1/hook', '172.31.0.1'],
    ['private 192.168/16', 'https://192.168.1.10/hook', '192.168.1.10'],
    ['shared 100.64/10', 'https://100.64.0.1/hook', '100.64.0.1'],
    ['unspecified', 'https://0.0.0.0/hook', '0.0.0.0'],
    ['IPv6 loopback', 'https://[::1]/hook', '::1'],
    ['IPv6 unique-local', 'https://[fd12:3456::1]/hook', 'fd12:3456::1'],
    ['IPv6 link-local', 'https://[fe80::1]/hook', 'fe80::1'],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/hook', '::ffff:7f00:1'],
  ])('refuses a literal %s address', async (_, url, address) => {
    await expect(hostAddressProblem(hostOf(url), noLookup)).resolves.toBe(
      `${address} is not a public address`,
    );
  });

  it.each(['https://93.184.215.14/hook', 'https://[2606:4700:4700::1111]/hook'])(
    'accepts a public literal address (%s)',
    async (url) => {
      await expect(hostAddressProblem(hostOf(url), noLookup)).resolves.toBeUndefined();
    },
  );

  it('refuses a name with any non-public address, naming it', async () => {
    await expect(
      hostAddressProblem('hooks.example.com', resolvesTo('93.184.215.14', '10.0.0.7')),
    ).resolves.toBe('hooks.example.com resolves to 10.0.0.7, which is not a public address');
    await expect(hostAddressProblem('metadata.internal', resolvesTo('169.254.169.254'))).resolves.toBe(
      'metadata.internal resolves to 169.254.169.254, which is not a public address',
    );
    await expect(hostAddressProblem('v6.example.com', resolvesTo('fc00::5'))).resolves.toBe(
      'v6.example.com resolves to fc00::5, which is not a public address',
    );
  });

  it('accepts a name whose addresses are all public', async () => {
    await expect(
      hostAddressProblem('hooks.example.com', resolvesTo('93.184.215.14', '2606:4700:4700::1111')),
    ).resolves.toBeUndefined();
  });

  it('accepts a name without an address (checked again at every connection), and answers 503 (UnavailableError) when DNS fails', async () => {
    for (const code of ['ENOTFOUND', 'ENODATA']) {
      await expect(hostAddressProblem('nowhere.example', failsWith(code))).resolves.toBeUndefined();
    }
    await expect(hostAddressProblem('nowhere.example', resolvesTo())).resolves.toBeUndefined();
    await expect(hostAddressProblem('hooks.example.com', failsWith('EAI_AGAIN'))).rejects.toBeInstanceOf(
      UnavailableError,
    );
  });
});
