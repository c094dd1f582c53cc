import type { Locator, Page } from 'playwright-core';
import { waitUntil } from '@ums/testing';

/** The run page's counters (`dd[data-testid=counter-<name>]`). */
export const COUNTER_NAMES = ['total', 'sent', 'delivered', 'read', 'failed', 'unknown', 'pending'] as const;
export type CounterName = (typeof COUNTER_NAMES)[number];
export type PageCounters = Record<CounterName, number>;

/** How long a page may take to show what the stack has done: generous, for a loaded machine. */
export const UI_TIMEOUT_MS = 60_000;

/**
 * Signs in on `#/sign-in` with `key` as a user would (the field, then the button) and waits for the
 * page the console opens after it, unless told not to (a key without campaigns:read sees a 403 there).
 */
export async function signIn(
  page: Page,
  consoleUrl: string,
  key: string,
  options: { readonly expectHeading?: string | null } = {},
): Promise<void> {
  await page.goto(`${consoleUrl}/#/sign-in`);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor({ timeout: UI_TIMEOUT_MS });
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const heading = options.expectHeading === undefined ? 'Campaigns' : options.expectHeading;
  if (heading !== null) await headingNamed(page, heading).waitFor({ timeout: UI_TIMEOUT_MS });
}

/** Goes to a hash route of the signed-in console (same tab: the key in sessionStorage stays). */
export async function openRoute(page: Page, consoleUrl: string, route: string): Promise<void> {
  await page.goto(`${consoleUrl}/#${route}`);
}

/** The page's heading with exactly this name. */
export function headingNamed(page: Page, name: string): Locator {
  return page.getByRole('heading', { name, exact: true });
}

/** A number as the console prints it (`1,500`, `1 500`, `1500`). */
export function parseCount(text: string | null): number {
  const digits = (text ?? '').replace(/[^0-9]/g, '');
  if (digits === '') throw new Error(`no number in "${text ?? ''}"`);
  return Number(digits);
}

/** The run page's counters as shown now. */
export async function readCounters(page: Page): Promise<PageCounters> {
  const entries = await Promise.all(
    COUNTER_NAMES.map(
      async (name) =>
        [
          name,
          parseCount(await page.getByTestId(`counter-${name}`).textContent({ timeout: 5_000 })),
        ] as const,
    ),
  );
  return Object.fromEntries(entries) as PageCounters;
}

/** The run state the run page shows (`data-testid="run-state"`). */
export async function runStateShown(page: Page): Promise<string> {
  return ((await page.getByTestId('run-state').textContent({ timeout: 5_000 })) ?? '').trim();
}

/** Waits until the run page shows `state`, answering its counters then. */
export async function waitForRunState(page: Page, state: string, timeoutMs = 180_000): Promise<PageCounters> {
  return waitUntil(
    `the run page to show ${state}`,
    async () => ((await runStateShown(page)) === state ? readCounters(page) : undefined),
    { timeoutMs, intervalMs: 500 },
  );
}

/**
 * Presses an action button, checks that its dialog (titled like the button) says what will happen,
 * ticks the given checkboxes and confirms; waits until the dialog has closed.
 */
export async function confirmAction(
  page: Page,
  button: string,
  options: { readonly check?: readonly string[] } = {},
): Promise<string> {
  await page.getByRole('button', { name: button, exact: true }).click();
  const dialog = page.getByRole('dialog', { name: button });
  await dialog.waitFor({ timeout: UI_TIMEOUT_MS });
  for (const label of options.check ?? []) await dialog.getByRole('checkbox', { name: label }).check();
  const text = (await dialog.textContent()) ?? '';
  await dialog.getByRole('button', { name: 'Confirm', exact: true }).click();
  await dialog.waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
  return text;
}

/**
 * Polls `read` until it has answered the same value for `seconds` in a row, and answers that value:
 * a counter that has stopped moving.
 */
export async function steadyValue(
  description: string,
  read: () => Promise<number>,
  seconds: number,
  timeoutMs = 120_000,
): Promise<number> {
  let last = await read();
  let since = Date.now();
  return waitUntil(
    description,
    async () => {
      const now = await read();
      if (now !== last) {
        last = now;
        since = Date.now();
        return undefined;
      }
      return Date.now() - since >= seconds * 1_000 ? now : undefined;
    },
    { timeoutMs, intervalMs: 500 },
  );
}

/** The id at the end of the page's hash route (`#/campaigns/c/runs/<id>` answers `<id>`). */
export function lastRouteSegment(page: Page): string {
  const hash = new URL(page.url()).hash;
  const id = hash.split('/').pop();
  if (id === undefined || id === '') throw new Error(`no id in the route ${hash}`);
  return decodeURIComponent(id);
}

/**
 * Back to the top of the page before a screenshot: the console moves focus to the content on each
 * change of page, which scrolls the header out of view.
 */
export async function scrollToTop(page: Page): Promise<void> {
  await page.evaluate('window.scrollTo(0, 0)');
}

/** Scrolls so that `locator` is at the top of the viewport (a section to show in a screenshot). */
export async function scrollToStart(page: Page, locator: Locator): Promise<void> {
  const box = await locator.boundingBox({ timeout: UI_TIMEOUT_MS });
  if (box === null) throw new Error('the section to show is not visible');
  await page.evaluate(`window.scrollBy(0, ${Math.round(box.y)})`);
}
