import { subscriberUrlProblem } from './subscriber-url-policy';

describe('subscriberUrlProblem', () => {
  const pub = { internal: false, internalAllowed: true };
  const internal = { internal: true, internalAllowed: true };

  it('accepts https for public subscribers and refuses everything else', () => {
    expect(subscriberUrlProblem('https://hooks.example.com/x', pub)).toBeUndefined();
    expect(subscriberUrlProblem('http://hooks.example.com/x', pub)).toBe(
      'must be https for a public subscriber',
    );
    expect(subscriberUrlProblem('ftp://hooks.example.com/x', pub)).toBe(
      'must be https for a public subscriber',
    );
    expect(subscriberUrlProblem('not a url', pub)).toBe('must be an absolute URL');
    expect(subscriberUrlProblem('https://u:p@hooks.example.com/', pub)).toBe('must not contain credentials');
    expect(subscriberUrlProblem('https://hooks.example.com/#x', pub)).toBe('must not contain a fragment');
    expect(subscriberUrlProblem(`https://hooks.example.com/${'a'.repeat(2100)}`, pub)).toBe(
      'must be at most 2048 characters',
    );
  });

  it('lets internal subscribers use http only where the deployment allows them', () => {
    expect(subscriberUrlProblem('http://crm.internal:8080/hook', internal)).toBeUndefined();
    expect(
      subscriberUrlProblem('http://crm.internal:8080/hook', { internal: true, internalAllowed: false }),
    ).toBe('internal subscribers are not allowed in this deployment');
    expect(subscriberUrlProblem('gopher://crm.internal/', internal)).toBe('must be http or https');
  });
});
