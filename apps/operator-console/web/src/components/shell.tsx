import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { navigate } from '../hooks/use-route';
import { useSession } from '../hooks/use-session';
import type { PageName, Route } from '../router/routes';

const LINKS: readonly {
  readonly href: string;
  readonly label: string;
  readonly pages: readonly PageName[];
}[] = [
  { href: '#/campaigns', label: 'Campaigns', pages: ['campaigns', 'campaign', 'run'] },
  { href: '#/campaigns/new', label: 'New campaign', pages: ['new-campaign'] },
  { href: '#/credentials', label: 'Credentials', pages: ['credentials'] },
  { href: '#/subscribers', label: 'Subscribers', pages: ['subscribers', 'subscriber'] },
  { href: '#/dead-letters', label: 'Dead letters', pages: ['dead-letters'] },
  { href: '#/audit', label: 'Audit trail', pages: ['audit'] },
];

/**
 * Moves focus to the page's content: the skip link scrolls to it; a change of page keeps the page at its
 * top, so that the header and the phone's Menu button stay in view.
 */
export function focusMain(options: { readonly keepTop?: boolean } = {}): void {
  document.getElementById('main-content')?.focus({ preventScroll: options.keepTop === true });
  if (options.keepTop === true) window.scrollTo(0, 0);
}

/** Skip link, header with the caller, the Main navigation, and the page. */
export function Shell({ route, children }: { route: Route; children: ComponentChildren }) {
  const [menuOpen, setMenuOpen] = useState(false);
  const first = useRef(true);
  useEffect(() => {
    setMenuOpen(false);
    if (first.current) first.current = false;
    else focusMain({ keepTop: true });
  }, [route]);
  return (
    <div class="layout">
      <SkipLink />
      <header class="topbar">
        <div class="topbar-row">
          <a class="brand" href="#/campaigns">
            UMS <span class="brand-sub">operator console</span>
          </a>
          <button
            type="button"
            class="button menu-toggle"
            aria-expanded={menuOpen}
            aria-controls="main-nav"
            onClick={() => setMenuOpen(!menuOpen)}
          >
            Menu
          </button>
          <Caller />
        </div>
        <nav id="main-nav" aria-label="Main" class={menuOpen ? 'main-nav open' : 'main-nav'}>
          <ul>
            {LINKS.map((link) => (
              <li key={link.href}>
                <a href={link.href} aria-current={link.pages.includes(route.page) ? 'page' : undefined}>
                  {link.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main id="main-content" tabIndex={-1}>
        {children}
      </main>
      <footer class="footer">
        <p>Your key stays in this tab only and is gone when you close it.</p>
      </footer>
    </div>
  );
}

export function SkipLink() {
  return (
    <a
      class="skip-link"
      href="#main-content"
      onClick={(event) => {
        event.preventDefault();
        focusMain();
      }}
    >
      Skip to content
    </a>
  );
}

function Caller() {
  const session = useSession();
  const whoami = session.whoami;
  if (whoami === null) return null;
  return (
    <div class="caller">
      {whoami.tenantId === null ? (
        <>
          <span class="caller-who">All tenants (operator)</span>
          <label class="act-for">
            <span>Act for tenant</span>
            <input
              type="text"
              name="act-for-tenant"
              value={session.actingTenant ?? ''}
              placeholder="tenant id"
              spellcheck={false}
              autocomplete="off"
              onChange={(event) => session.setActingTenant(event.currentTarget.value)}
            />
          </label>
        </>
      ) : (
        <span class="caller-who">
          Tenant <strong>{whoami.tenantId}</strong>
        </span>
      )}
      <button
        type="button"
        class="button"
        onClick={() => {
          session.signOut();
          navigate('#/sign-in');
        }}
      >
        Sign out
      </button>
    </div>
  );
}
