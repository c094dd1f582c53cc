import { useState } from 'preact/hooks';
import { type ApiError, toApiError } from '../api/api-error';
import type { Whoami } from '../api/api.types';
import { client, session } from '../api/console-client';
import { ErrorAlert } from '../components/error-alert';
import { navigate } from '../hooks/use-route';
import { nextAfterSignIn } from '../router/routes';
import { asWhoami } from '../session/session.store';

/** Asks for an API key, checks it with GET /v1/whoami and keeps it for this tab. */
export function SignInPage() {
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const submit = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      const whoami = asWhoami(await client.whoamiOf<Whoami>(key.trim()));
      if (whoami === null) throw new Error('The whoami answer is not one');
      session.signIn(key.trim(), whoami);
      navigate(nextAfterSignIn(window.location.hash));
    } catch (thrown) {
      setError(toApiError(thrown));
      setBusy(false);
    }
  };
  return (
    <section class="page sign-in" aria-labelledby="sign-in-heading">
      <h1 id="sign-in-heading">Sign in</h1>
      <p>
        Sign in with a tenant API key or an access token (JWT) of your identity provider, or with the operator
        key to see every tenant. The key stays in this browser tab only and is sent with each call to the
        APIs.
      </p>
      <form
        class="form"
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <div class="field">
          <label for="api-key">API key</label>
          <input
            id="api-key"
            name="api-key"
            type="password"
            autocomplete="off"
            required
            value={key}
            onInput={(event) => setKey(event.currentTarget.value)}
          />
        </div>
        <ErrorAlert error={error} />
        <button type="submit" class="button button-primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </section>
  );
}
