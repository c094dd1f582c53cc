import { Provider } from '@ums/contracts';

/**
 * Where provider requests may go. A credential's base URL is not the tenant's to choose freely:
 * the request carries the provider secret (a bearer token, Basic auth, an API key), so a base URL
 * pointing elsewhere would hand that secret to whoever answers there. The deployment lists each
 * provider's endpoints; a credential picks one of them, and the sender checks again at send time.
 */

/** Each provider's public API, the default allowlist entry (the simulator's is the demo's port). */
export const DEFAULT_PROVIDER_ENDPOINTS: Readonly<Record<Provider, readonly string[]>> = {
  [Provider.WhatsAppCloud]: ['https://graph.facebook.com'],
  [Provider.Twilio]: ['https://api.twilio.com'],
  // SES v2 has one endpoint per region: email.<region>.amazonaws.com.
  [Provider.Ses]: ['https://email.*.amazonaws.com'],
  // Mitto's geo-resolved endpoint (the default), its regional ones (rest-fra...) and rest.mittoapi.com.
  [Provider.Mitto]: ['https://rest.mittoapi.net', 'https://*.mittoapi.net', 'https://rest.mittoapi.com'],
  [Provider.Simulator]: ['http://127.0.0.1:3005'],
};

/**
 * One allowlist entry: `scheme://host[:port][/path]`. A host label may be `*` (exactly one label
 * of letters, digits and hyphens) when at least two fixed labels follow it; the port may be `*`
 * (any port, for test and development hosts whose simulator port is chosen at start-up).
 */
export interface EndpointPattern {
  /** The entry as configured. */
  readonly text: string;
  readonly protocol: 'http:' | 'https:';
  /** Lower-case host labels, `*` for a wildcard label; an IPv6 literal is one label with its brackets. */
  readonly labels: readonly string[];
  /** The port (the scheme's default when the entry names none), or '*' for any. */
  readonly port: number | '*';
  /** The path without trailing slashes ('' for none): a credential's path must be exactly this. */
  readonly path: string;
}

export type EndpointPatternParse =
  { readonly ok: true; readonly pattern: EndpointPattern } | { readonly ok: false; readonly reason: string };

const ENTRY = /^(https?):\/\/(\[[0-9A-Fa-f:.]+\]|[^/:?#@[\]\s]+)(?::(\d{1,5}|\*))?(\/[^?#\s]*)?$/;
const LABEL = /^[a-z0-9-]{1,63}$/;
const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/** Parses an allowlist entry, or says why it is not one. */
export function parseEndpointPattern(entry: string): EndpointPatternParse {
  const match = ENTRY.exec(entry);
  if (match === null) {
    return {
      ok: false,
      reason: `'${entry}' must be http(s)://host[:port][/path], without query or fragment`,
    };
  }
  const protocol = `${match[1] ?? ''}:` as 'http:' | 'https:';
  const host = (match[2] ?? '').toLowerCase();
  const labels = host.startsWith('[') ? [host] : host.split('.');
  const wildcards = labels.flatMap((label, index) => (label === '*' ? [index] : []));
  if (!host.startsWith('[') && labels.some((label) => label !== '*' && !LABEL.test(label))) {
    return { ok: false, reason: `'${entry}' has a host label that is not letters, digits or hyphens` };
  }
  if (wildcards.some((index) => labels.length - index - 1 < 2)) {
    return { ok: false, reason: `'${entry}': a * host label needs at least two fixed labels after it` };
  }
  const portText = match[3];
  const port =
    portText === undefined ? (DEFAULT_PORTS[protocol] ?? 0) : portText === '*' ? '*' : Number(portText);
  if (port !== '*' && (port < 1 || port > 65_535))
    return { ok: false, reason: `'${entry}' has no valid port` };
  const path = trimSlashes(match[4] ?? '');
  return { ok: true, pattern: { text: entry, protocol, labels, port, path } };
}

/** The parts of a base URL that an allowlist entry is compared with; undefined when it is no http(s) URL. */
interface BaseUrlParts {
  readonly protocol: string;
  readonly labels: readonly string[];
  readonly port: number;
  readonly path: string;
}

function baseUrlParts(baseUrl: string): BaseUrlParts | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  const defaultPort = DEFAULT_PORTS[url.protocol];
  if (defaultPort === undefined || url.username !== '' || url.password !== '') return undefined;
  if (url.search !== '' || url.hash !== '' || /[?#]/.test(baseUrl)) return undefined;
  const host = url.hostname.toLowerCase();
  return {
    protocol: url.protocol,
    labels: host.startsWith('[') ? [host] : host.split('.'),
    port: url.port === '' ? defaultPort : Number(url.port),
    path: trimSlashes(url.pathname),
  };
}

function originMatches(pattern: EndpointPattern, parts: BaseUrlParts): boolean {
  return (
    pattern.protocol === parts.protocol &&
    (pattern.port === '*' || pattern.port === parts.port) &&
    pattern.labels.length === parts.labels.length &&
    pattern.labels.every((label, index) => {
      const candidate = parts.labels[index] ?? '';
      return label === '*' ? LABEL.test(candidate) : label === candidate;
    })
  );
}

/** Whether a base URL is the endpoint an allowlist entry names (scheme, host, port and path). */
export function endpointMatches(pattern: EndpointPattern, baseUrl: string): boolean {
  const parts = baseUrlParts(baseUrl);
  return parts !== undefined && originMatches(pattern, parts) && pattern.path === parts.path;
}

/**
 * Whether two base URLs name the same endpoint (same scheme, host, port and path; case of the
 * host, default ports and trailing slashes aside). Anything unparsable is only the same as itself.
 */
export function sameEndpoint(a: string, b: string): boolean {
  const first = baseUrlParts(a);
  const second = baseUrlParts(b);
  if (first === undefined || second === undefined) return a === b;
  return (
    first.protocol === second.protocol &&
    first.port === second.port &&
    first.path === second.path &&
    first.labels.join('.') === second.labels.join('.')
  );
}

function trimSlashes(path: string): string {
  return path.replace(/\/+$/, '');
}

export interface ProviderEndpointPolicyOptions {
  /** Each provider's allowlist entries, as configured (already validated). */
  readonly allowlists: Readonly<Record<Provider, readonly string[]>>;
  /** Whether `simulator` credentials may be created and sent with. */
  readonly simulatorEnabled: boolean;
}

/** The deployment's rules for where each provider's requests may go. */
export class ProviderEndpointPolicy {
  private readonly patterns: ReadonlyMap<Provider, readonly EndpointPattern[]>;

  constructor(private readonly options: ProviderEndpointPolicyOptions) {
    const patterns = new Map<Provider, readonly EndpointPattern[]>();
    for (const provider of Object.values(Provider)) {
      patterns.set(
        provider,
        options.allowlists[provider].map((entry) => {
          const parsed = parseEndpointPattern(entry);
          if (!parsed.ok) throw new Error(`provider endpoint for ${provider}: ${parsed.reason}`);
          return parsed.pattern;
        }),
      );
    }
    this.patterns = patterns;
  }

  /** The simulator only where the deployment turned it on; real providers always. */
  isEnabled(provider: Provider): boolean {
    return provider !== Provider.Simulator || this.options.simulatorEnabled;
  }

  /** The allowlist entries of a provider, as configured. */
  endpoints(provider: Provider): readonly string[] {
    return this.options.allowlists[provider];
  }

  /** The endpoint a credential gets when it names none: the first entry without a wildcard. */
  defaultBaseUrl(provider: Provider): string | undefined {
    const pattern = this.patternsOf(provider).find(
      (candidate) => candidate.port !== '*' && !candidate.labels.includes('*'),
    );
    return pattern?.text;
  }

  /** Why a provider's requests may not go to this base URL, or undefined when they may. */
  endpointProblem(provider: Provider, baseUrl: string): string | undefined {
    if (this.patternsOf(provider).some((pattern) => endpointMatches(pattern, baseUrl))) return undefined;
    const allowed = this.endpoints(provider);
    return allowed.length === 0
      ? `no ${provider} endpoint is allowed on this deployment`
      : `must be one of this deployment's ${provider} endpoints: ${allowed.join(', ')}`;
  }

  /** Whether an origin (`scheme://host[:port]`) is one an enabled provider's allowlist names. */
  trustsOrigin(origin: string): boolean {
    const parts = baseUrlParts(origin);
    if (parts === undefined) return false;
    return Object.values(Provider).some(
      (provider) =>
        this.isEnabled(provider) &&
        this.patternsOf(provider).some((pattern) => originMatches(pattern, parts)),
    );
  }

  private patternsOf(provider: Provider): readonly EndpointPattern[] {
    return this.patterns.get(provider) ?? [];
  }
}
