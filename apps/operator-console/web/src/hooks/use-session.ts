import { useEffect, useState } from 'preact/hooks';
import { session } from '../api/console-client';
import type { SessionStore } from '../session/session.store';

/** The session, re-rendering on sign-in, sign-out and a tenant picked. */
export function useSession(): SessionStore {
  const [, setVersion] = useState(0);
  useEffect(() => session.subscribe(() => setVersion((version) => version + 1)), []);
  return session;
}
