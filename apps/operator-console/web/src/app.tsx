import { useEffect, useState } from 'preact/hooks';
import type { ApiError } from './api/api-error';
import { client, session } from './api/console-client';
import { ErrorBoundary } from './components/error-boundary';
import { Shell, SkipLink } from './components/shell';
import { navigate, useRoute } from './hooks/use-route';
import { useSession } from './hooks/use-session';
import { AuditPage } from './pages/audit.page';
import { CampaignPage } from './pages/campaign.page';
import { CampaignsPage } from './pages/campaigns.page';
import { CredentialsPage } from './pages/credentials.page';
import { DeadLettersPage } from './pages/dead-letters.page';
import { ForbiddenPage } from './pages/forbidden.page';
import { NewCampaignPage } from './pages/new-campaign.page';
import { NotFoundPage } from './pages/not-found.page';
import { RunPage } from './pages/run.page';
import { SignInPage } from './pages/sign-in.page';
import { SubscriberPage } from './pages/subscriber.page';
import { SubscribersPage } from './pages/subscribers.page';
import { type Route, scopeOf, signInHref, titleOf } from './router/routes';

function PageOf({ route }: { route: Route }) {
  switch (route.page) {
    case 'campaigns':
      return <CampaignsPage />;
    case 'new-campaign':
      return <NewCampaignPage />;
    case 'campaign':
      return <CampaignPage campaignId={route.campaignId} />;
    case 'run':
      return <RunPage campaignId={route.campaignId} runId={route.runId} />;
    case 'credentials':
      return <CredentialsPage />;
    case 'subscribers':
      return <SubscribersPage />;
    case 'subscriber':
      return <SubscriberPage subscriberId={route.subscriberId} />;
    case 'dead-letters':
      return <DeadLettersPage />;
    case 'audit':
      return <AuditPage />;
    case 'not-found':
      return <NotFoundPage path={route.path} />;
    default:
      return null;
  }
}

/** A 403 belongs to the page it happened on: it is shown until the route changes. */
interface Refusal {
  readonly hash: string;
  readonly error: ApiError;
}

/** Routes to the page; sign-in first; 401 back to sign-in; a 403 shows the Forbidden page. */
export function App() {
  const route = useRoute();
  const { signedIn } = useSession();
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  useEffect(() => {
    client.setAuthFailureHandlers({
      onUnauthorized: () => {
        const here = window.location.hash;
        session.signOut();
        navigate(signInHref(here));
      },
      onForbidden: (error) => setRefusal({ hash: window.location.hash, error }),
    });
  }, []);
  useEffect(() => setRefusal(null), [route]);
  useEffect(() => {
    document.title = titleOf(route);
    if (route.page === 'home') navigate(signedIn ? '#/campaigns' : '#/sign-in');
    else if (!signedIn && route.page !== 'sign-in') navigate(signInHref(window.location.hash));
  }, [route, signedIn]);
  if (route.page === 'sign-in' || !signedIn) {
    return (
      <div class="layout layout-bare">
        <SkipLink />
        <header class="topbar">
          <div class="topbar-row">
            <span class="brand">
              UMS <span class="brand-sub">operator console</span>
            </span>
          </div>
        </header>
        <main id="main-content" tabIndex={-1}>
          <ErrorBoundary>{route.page === 'sign-in' ? <SignInPage /> : null}</ErrorBoundary>
        </main>
      </div>
    );
  }
  const forbidden = refusal !== null && refusal.hash === window.location.hash ? refusal.error : null;
  return (
    <Shell route={route}>
      <ErrorBoundary key={window.location.hash}>
        {forbidden === null ? (
          <PageOf route={route} />
        ) : (
          <ForbiddenPage error={forbidden} pageScope={scopeOf(route)} />
        )}
      </ErrorBoundary>
    </Shell>
  );
}
