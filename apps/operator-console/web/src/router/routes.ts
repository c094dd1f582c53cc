/** The console's pages, by hash route (`#/campaigns/42/runs/7`). */
export type Route =
  | { readonly page: 'home' }
  | { readonly page: 'sign-in' }
  | { readonly page: 'campaigns' }
  | { readonly page: 'new-campaign' }
  | { readonly page: 'campaign'; readonly campaignId: string }
  | { readonly page: 'run'; readonly campaignId: string; readonly runId: string }
  | { readonly page: 'credentials' }
  | { readonly page: 'subscribers' }
  | { readonly page: 'subscriber'; readonly subscriberId: string }
  | { readonly page: 'dead-letters' }
  | { readonly page: 'audit' }
  | { readonly page: 'not-found'; readonly path: string };

export type PageName = Route['page'];

function decode(part: string): string | null {
  try {
    const value = decodeURIComponent(part);
    return value === '' ? null : value;
  } catch {
    return null;
  }
}

const FIXED: Readonly<Record<string, Route>> = {
  '': { page: 'home' },
  'sign-in': { page: 'sign-in' },
  campaigns: { page: 'campaigns' },
  'campaigns/new': { page: 'new-campaign' },
  credentials: { page: 'credentials' },
  subscribers: { page: 'subscribers' },
  'dead-letters': { page: 'dead-letters' },
  audit: { page: 'audit' },
};

function withIds(parts: readonly string[]): Route | null {
  const ids = parts.map(decode);
  if (ids.some((id) => id === null)) return null;
  const [first, a, second, b] = [parts[0], ids[1], parts[2], ids[3]];
  if (first === 'campaigns' && a && parts.length === 2) return { page: 'campaign', campaignId: a };
  if (first === 'campaigns' && a && second === 'runs' && b && parts.length === 4) {
    return { page: 'run', campaignId: a, runId: b };
  }
  if (first === 'subscribers' && a && parts.length === 2) return { page: 'subscriber', subscriberId: a };
  return null;
}

/** The route of a location hash ('', '#/', '#/campaigns', ...); anything else is not-found. */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#\/?/, '').replace(/\/+$/, '').split('?')[0] ?? '';
  const fixed = FIXED[path];
  if (fixed !== undefined) return fixed;
  return withIds(path.split('/')) ?? { page: 'not-found', path: `/${path}` };
}

const seg = encodeURIComponent;

/** The hash link of a route. */
export function hrefOf(route: Route): string {
  switch (route.page) {
    case 'home':
      return '#/';
    case 'new-campaign':
      return '#/campaigns/new';
    case 'campaign':
      return `#/campaigns/${seg(route.campaignId)}`;
    case 'run':
      return `#/campaigns/${seg(route.campaignId)}/runs/${seg(route.runId)}`;
    case 'subscriber':
      return `#/subscribers/${seg(route.subscriberId)}`;
    case 'not-found':
      return `#${route.path}`;
    default:
      return `#/${route.page}`;
  }
}

/** The scope a page needs to show (null: none). */
export function scopeOf(route: Route): string | null {
  switch (route.page) {
    case 'campaigns':
    case 'campaign':
    case 'run':
      return 'campaigns:read';
    case 'new-campaign':
      return 'campaigns:write';
    case 'credentials':
      return 'credentials:read';
    case 'subscribers':
    case 'subscriber':
      return 'subscribers:read';
    case 'dead-letters':
      return 'dead-letters:admin';
    case 'audit':
      return 'audit:read';
    default:
      return null;
  }
}

/** The document title of a page. */
export function titleOf(route: Route): string {
  const titles: Record<PageName, string> = {
    home: 'Campaigns',
    'sign-in': 'Sign in',
    campaigns: 'Campaigns',
    'new-campaign': 'New campaign',
    campaign: 'Campaign',
    run: 'Run',
    credentials: 'Credentials',
    subscribers: 'Subscribers',
    subscriber: 'Subscriber',
    'dead-letters': 'Dead letters',
    audit: 'Audit trail',
    'not-found': 'Not found',
  };
  return `${titles[route.page]} · UMS console`;
}

/** The sign-in link that comes back to `hash` once signed in. */
export function signInHref(hash: string): string {
  const next = hash.startsWith('#/') && !hash.startsWith('#/sign-in') ? hash : '';
  return next === '' || next === '#/' ? '#/sign-in' : `#/sign-in?next=${encodeURIComponent(next)}`;
}

/** Where to go after signing in: the page the sign-in link names, else the campaigns. */
export function nextAfterSignIn(hash: string): string {
  const query = hash.split('?')[1] ?? '';
  const next = new URLSearchParams(query).get('next');
  return next !== null && next.startsWith('#/') && !next.startsWith('#/sign-in') ? next : '#/campaigns';
}
