import { type ApiError, missingScope } from '../api/api-error';
import { session } from '../api/console-client';
import { navigate } from '../hooks/use-route';

/** The API refused the key (403): the code and message, and the scope the page (and the call) needs. */
export function ForbiddenPage({ error, pageScope }: { error: ApiError; pageScope: string | null }) {
  const callScope = missingScope(error);
  const scopes = session.whoami?.scopes ?? [];
  return (
    <section class="page" aria-labelledby="forbidden-heading">
      <h1 id="forbidden-heading">403 Forbidden</h1>
      <div class="alert alert-error" role="alert">
        <p>
          <strong class="error-code">{error.code}</strong> <span class="error-message">{error.message}</span>
        </p>
      </div>
      {pageScope === null ? null : (
        <p>
          This page needs the <code class="scope">{pageScope}</code> scope.
          {callScope === undefined || callScope === pageScope ? null : (
            <>
              {' '}
              The refused call needs <code class="scope">{callScope}</code>.
            </>
          )}
        </p>
      )}
      <p>
        Your key has: {scopes.length === 0 ? 'no scopes' : <code class="scope">{scopes.join(', ')}</code>}
      </p>
      <p>
        <button
          type="button"
          class="button"
          onClick={() => {
            session.signOut();
            navigate('#/sign-in');
          }}
        >
          Sign in with another key
        </button>
      </p>
    </section>
  );
}
