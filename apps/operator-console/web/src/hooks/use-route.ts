import { useEffect, useState } from 'preact/hooks';
import { parseRoute, type Route } from '../router/routes';

/** The current hash route, following hashchange. */
export function useRoute(): Route {
  const [route, setRoute] = useState<Route>(() => parseRoute(window.location.hash));
  useEffect(() => {
    const follow = (): void => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  return route;
}

/** Goes to a hash route (`#/campaigns`). */
export function navigate(hash: string): void {
  if (window.location.hash === hash) return;
  window.location.hash = hash;
}
