import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { workspaceRoot } from '../workspace-root';

/** Where the console's screenshots go: checked in, and shown in the README. */
export function screenshotDir(): string {
  return join(workspaceRoot(), 'docs', 'console');
}

/**
 * The page's viewport (the size its context was made with: 1280x800 by default) as
 * `docs/console/<name>.png`, written over the previous one. Names are fixed words (`run-paused`), so
 * every run replaces the same files; animations are stopped and the caret hidden first.
 */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(name))
    throw new Error(`screenshot name "${name}" must be lower-case words joined by hyphens`);
  const dir = screenshotDir();
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path, animations: 'disabled', caret: 'hide', fullPage: false });
  return path;
}
