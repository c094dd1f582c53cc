export interface SubscriberUrlRules {
  /** Internal subscribers (our own services) may use http and private hosts; public ones may not. */
  readonly internal: boolean;
  readonly internalAllowed: boolean;
}

/**
 * Why a subscriber URL is refused, or undefined when it is acceptable. Addresses are not checked here:
 * a name can resolve differently later, so public subscribers are checked at connect time, after DNS.
 */
export function subscriberUrlProblem(url: string, rules: SubscriberUrlRules): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.length > 2048) return 'must be at most 2048 characters';
  if (parsed.username !== '' || parsed.password !== '') return 'must not contain credentials';
  if (parsed.hash !== '') return 'must not contain a fragment';
  if (rules.internal) {
    if (!rules.internalAllowed) return 'internal subscribers are not allowed in this deployment';
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must be http or https';
    return undefined;
  }
  if (parsed.protocol !== 'https:') return 'must be https for a public subscriber';
  return undefined;
}
