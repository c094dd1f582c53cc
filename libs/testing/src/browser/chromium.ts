import { existsSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';

/**
 * Flags for a headless Chromium in a container or CI job: no sandbox (it needs user namespaces that a
 * container seldom has), no GPU, and none of the background traffic a first run starts (QUIC probes,
 * component and sync updates), so that a test talks to loopback only.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The desktop size the console is drawn at in tests and screenshots. */
export const DESKTOP_VIEWPORT = { width: 1280, height: 800 } as const;
/** A phone's size (an iPhone X-class screen, in CSS pixels). */
export const PHONE_VIEWPORT = { width: 375, height: 812 } as const;

/** Where the browser is: CHROMIUM_PATH, else Debian's `chromium` package. */
export function chromiumPath(): string {
  const configured = process.env['CHROMIUM_PATH'];
  return configured === undefined || configured === '' ? '/usr/bin/chromium' : configured;
}

/**
 * Debian's Chromium, headless, through `playwright-core` (which brings no browser of its own). A
 * missing executable fails with what to install: browser tests are never skipped silently.
 * `playwright-core` is loaded here, not when `@ums/testing` is (a quarter of a second per suite).
 */
export async function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!existsSync(executablePath))
    throw new Error(
      `Chromium not found at ${executablePath}: install the Debian package chromium ` +
        `(apt-get install chromium), or set CHROMIUM_PATH to a Chromium or Chrome executable`,
    );
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath, headless: true, args: [...CHROMIUM_ARGS] });
}

export interface BrowserPage {
  readonly context: BrowserContext;
  readonly page: Page;
}

/**
 * A fresh context (no cookies, storage or cache shared with another test) and its first page, at
 * the desktop size unless told otherwise; `baseURL` lets `page.goto('/#/sign-in')` name a path only.
 */
export async function newBrowserPage(
  browser: Browser,
  options: { readonly baseURL?: string; readonly viewport?: { width: number; height: number } } = {},
): Promise<BrowserPage> {
  const context = await browser.newContext({
    baseURL: options.baseURL,
    viewport: options.viewport ?? DESKTOP_VIEWPORT,
    deviceScaleFactor: 1,
    locale: 'en-GB',
    timezoneId: 'UTC',
    colorScheme: 'light',
    reducedMotion: 'reduce',
  });
  const page = await context.newPage();
  return { context, page };
}
