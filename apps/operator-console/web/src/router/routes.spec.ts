import { hrefOf, nextAfterSignIn, parseRoute, type Route, scopeOf, signInHref, titleOf } from './routes';

describe('routes', () => {
  it('parse every page of the console', () => {
    expect(parseRoute('')).toEqual({ page: 'home' });
    expect(parseRoute('#/')).toEqual({ page: 'home' });
    expect(parseRoute('#/sign-in')).toEqual({ page: 'sign-in' });
    expect(parseRoute('#/campaigns/')).toEqual({ page: 'campaigns' });
    expect(parseRoute('#/campaigns/new')).toEqual({ page: 'new-campaign' });
    expect(parseRoute('#/campaigns/c%201')).toEqual({ page: 'campaign', campaignId: 'c 1' });
    expect(parseRoute('#/campaigns/c1/runs/7')).toEqual({ page: 'run', campaignId: 'c1', runId: '7' });
    expect(parseRoute('#/subscribers/s1')).toEqual({ page: 'subscriber', subscriberId: 's1' });
    expect(parseRoute('#/dead-letters')).toEqual({ page: 'dead-letters' });
    expect(parseRoute('#/audit')).toEqual({ page: 'audit' });
  });

  it('send anything else to not-found', () => {
    expect(parseRoute('#/campaigns/c1/runs')).toEqual({ page: 'not-found', path: '/campaigns/c1/runs' });
    expect(parseRoute('#/nope')).toEqual({ page: 'not-found', path: '/nope' });
    expect(parseRoute('#/campaigns/%E0%A4%A')).toEqual({ page: 'not-found', path: '/campaigns/%E0%A4%A' });
  });

  it('link back to what they parse from', () => {
    const routes: Route[] = [
      { page: 'campaigns' },
      { page: 'new-campaign' },
      { page: 'campaign', campaignId: 'a/b' },
      { page: 'run', campaignId: 'c', runId: '9' },
      { page: 'subscriber', subscriberId: 's 1' },
      { page: 'audit' },
    ];
    for (const route of routes) expect(parseRoute(hrefOf(route))).toEqual(route);
  });

  it('name the scope each page needs and its title', () => {
    expect(scopeOf({ page: 'run', campaignId: 'c', runId: '1' })).toBe('campaigns:read');
    expect(scopeOf({ page: 'new-campaign' })).toBe('campaigns:write');
    expect(scopeOf({ page: 'dead-letters' })).toBe('dead-letters:admin');
    expect(scopeOf({ page: 'sign-in' })).toBeNull();
    expect(titleOf({ page: 'audit' })).toBe('Audit trail · UMS console');
  });
});

describe('sign-in links', () => {
  it('come back to the page asked for, never to sign-in itself', () => {
    expect(signInHref('#/campaigns/c1')).toBe('#/sign-in?next=%23%2Fcampaigns%2Fc1');
    expect(nextAfterSignIn(signInHref('#/campaigns/c1'))).toBe('#/campaigns/c1');
    expect(signInHref('#/sign-in?next=x')).toBe('#/sign-in');
    expect(signInHref('')).toBe('#/sign-in');
    expect(nextAfterSignIn('#/sign-in')).toBe('#/campaigns');
    expect(nextAfterSignIn('#/sign-in?next=https%3A%2F%2Fevil')).toBe('#/campaigns');
  });
});
