import { SessionStore } from '../session/session.store';
import { ApiClient } from './api.client';
import { dispatcherApi, schedulerApi } from './console.api';

/** The browser tab's session (sessionStorage: gone when the tab closes). */
export const session = new SessionStore(window.sessionStorage);

/** The client every page calls the APIs through. */
export const client = new ApiClient({
  session,
  fetch: (url, init) => window.fetch(url, init),
  randomId: () => crypto.randomUUID(),
});

export const scheduler = schedulerApi(client);
export const dispatcher = dispatcherApi(client);
