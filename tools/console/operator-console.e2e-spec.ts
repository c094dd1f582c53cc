import type { Browser, Page } from 'playwright-core';
import {
  type BrowserPage,
  launchChromium,
  LoopbackSubscriber,
  newBrowserPage,
  PHONE_VIEWPORT,
  saveScreenshot,
  waitUntil,
} from '@ums/testing';
import { registerInternalSubscriber } from '../stack/pipeline-campaign';
import {
  confirmAction,
  headingNamed,
  lastRouteSegment,
  openRoute,
  readCounters,
  runStateShown,
  scrollToStart,
  scrollToTop,
  signIn,
  steadyValue,
  UI_TIMEOUT_MS,
  waitForRunState,
} from './console-pages.fixture';
import {
  audienceCsv,
  CONSOLE_FAILURE_THRESHOLD,
  CONSOLE_TENANT,
  type ConsoleStack,
  createCampaignWithAudience,
  sendsOf,
  startConsoleStack,
  waitForRun,
} from './console-stack.fixture';

/** Recipients of the campaign created through the New campaign page (plus its one bad row). */
const CSV_RECIPIENTS = 200;
/** Recipients of the run that is paused and resumed: at CONSOLE_RATE_CEILING it sends for over a minute. */
const LONG_RUN_RECIPIENTS = 1_500;
/** Recipients of the campaign whose status events the tombstoned subscriber misses. */
const SUBSCRIBER_RECIPIENTS = 10;
/**
 * A fresh browser context and its page, or closing them: well under a second on a quiet host, but the
 * main phase's other suites load both cores, and Jest's default of 5 s for a hook was once exceeded.
 */
const HOOK_TIMEOUT_MS = 60_000;
const MAIN_LINKS = ['Campaigns', 'New campaign', 'Credentials', 'Subscribers', 'Dead letters', 'Audit trail'];

/**
 * The operator console driven in Debian's Chromium (headless, through playwright-core) against the
 * whole local stack, the console's server among it: each test signs in with a key in a fresh browser
 * context, does what an operator would, checks what the pages show against what the stack did, and
 * saves a screenshot to docs/console/.
 */
describe('the operator console in Chromium', () => {
  let browser: Browser | undefined;
  let fixture: ConsoleStack;
  let tab: BrowserPage | undefined;
  /** What one test leaves for the next: the campaign made on the New campaign page and its run. */
  const made: { campaignId?: string; campaignName?: string; runId?: string } = {};

  const page = (): Page => {
    if (tab === undefined) throw new Error('no browser page');
    return tab.page;
  };
  const consoleUrl = (): string => fixture.consoleUrl;

  beforeAll(async () => {
    // First: without Chromium this fails at once, naming the package to install.
    browser = await launchChromium();
    fixture = await startConsoleStack('operator-console-e2e');
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await fixture?.stop();
  }, 90_000);

  beforeEach(async () => {
    if (browser === undefined) throw new Error('Chromium did not start');
    tab = await newBrowserPage(browser);
  }, HOOK_TIMEOUT_MS);

  afterEach(async () => {
    await tab?.context.close();
    tab = undefined;
  }, HOOK_TIMEOUT_MS);

  it('signs in with a tenant key, kept in sessionStorage only', async () => {
    const p = page();
    await p.goto(`${consoleUrl()}/#/sign-in`);
    await headingNamed(p, 'Sign in').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await p.getByLabel('API key', { exact: true }).getAttribute('type')).toBe('password');
    await saveScreenshot(p, 'sign-in');

    await p.getByLabel('API key', { exact: true }).fill(fixture.tenantKey);
    await p.getByRole('button', { name: 'Sign in', exact: true }).click();
    await headingNamed(p, 'Campaigns').waitFor({ timeout: UI_TIMEOUT_MS });
    const nav = p.getByRole('navigation', { name: 'Main' });
    for (const name of MAIN_LINKS) expect(await nav.getByRole('link', { name, exact: true }).count()).toBe(1);
    expect(await p.getByRole('button', { name: 'Sign out', exact: true }).isVisible()).toBe(true);
    expect(await p.locator('body').textContent()).toContain(CONSOLE_TENANT);
    // Evaluated in the page (a string: this project's TypeScript has no DOM types).
    const stored = await p.evaluate<{ session: string[]; local: string[]; cookie: string }>(
      '({ session: Object.values(sessionStorage), local: Object.values(localStorage), cookie: document.cookie })',
    );
    expect(stored.session.some((value) => value.includes(fixture.tenantKey))).toBe(true);
    expect(stored.local.some((value) => value.includes(fixture.tenantKey))).toBe(false);
    expect(stored.cookie).toBe('');
    await saveScreenshot(p, 'campaigns');
  }, 120_000);

  it('creates a campaign from a CSV with a bad row, and shows the reject with its reason', async () => {
    const p = page();
    await signIn(p, consoleUrl(), fixture.tenantKey);
    await p
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'New campaign', exact: true })
      .click();
    await headingNamed(p, 'New campaign').waitFor({ timeout: UI_TIMEOUT_MS });
    const name = 'Spring sale';
    await p.getByLabel('Name', { exact: true }).fill(name);
    await p.getByLabel('Channel', { exact: true }).selectOption('whatsapp');
    await p.getByLabel('Credential', { exact: true }).selectOption(fixture.credential.id);
    await p.getByLabel('Message text', { exact: true }).fill('Hi {{first_name}}, spring prices are in');
    await p.getByRole('radio', { name: 'CSV file', exact: true }).check();
    await p.locator('input[type="file"]').setInputFiles({
      name: 'spring-sale.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(audienceCsv(CSV_RECIPIENTS, 0, 'call me maybe')),
    });
    await p.getByRole('button', { name: 'Create campaign', exact: true }).click();

    await p.getByText(`Accepted ${CSV_RECIPIENTS}, rejected 1`).waitFor({ timeout: 120_000 });
    const rejects = p.getByRole('table', { name: 'Rejected rows' });
    // The header, then the one reject: line 3 (the header is line 1), its field and reason.
    expect(await rejects.getByRole('row').count()).toBe(2);
    const reject = rejects.getByRole('row').nth(1);
    expect(await reject.getByRole('cell').first().textContent()).toBe('3');
    expect(await reject.getByRole('cell').nth(1).textContent()).toBe('phone');
    expect(await reject.textContent()).toContain('phone number contains letters');
    await scrollToStart(p, p.getByRole('heading', { name: 'Import', exact: true }));
    await saveScreenshot(p, 'csv-reject');

    await p.getByRole('link', { name: 'Open campaign', exact: true }).click();
    await headingNamed(p, name).waitFor({ timeout: UI_TIMEOUT_MS });
    made.campaignId = lastRouteSegment(p);
    made.campaignName = name;
    const campaign = await fixture.scheduler.campaigns.get(made.campaignId);
    expect(campaign.name).toBe(name);
  }, 180_000);

  it('starts the campaign and follows its charts and counters to COMPLETED', async () => {
    const p = page();
    const { campaignId, campaignName } = made;
    if (campaignId === undefined || campaignName === undefined)
      throw new Error('no campaign from the CSV test');
    await signIn(p, consoleUrl(), fixture.tenantKey);
    await openRoute(p, consoleUrl(), `/campaigns/${campaignId}`);
    await headingNamed(p, campaignName).waitFor({ timeout: UI_TIMEOUT_MS });
    await confirmAction(p, 'Start run');
    const runLink = p.getByRole('link', { name: /^Run / }).first();
    await runLink.waitFor({ timeout: UI_TIMEOUT_MS });
    await runLink.click();
    await p.getByTestId('run-state').waitFor({ timeout: UI_TIMEOUT_MS });
    const runId = lastRouteSegment(p);
    made.runId = runId;
    await headingNamed(p, `Run ${runId}`).waitFor({ timeout: UI_TIMEOUT_MS });

    await waitForRunState(p, 'COMPLETED');
    // The read callbacks come after the sends: the counters settle once each message is read.
    const counters = await waitUntil(
      'every message shown read',
      async () => {
        const shown = await readCounters(p);
        return shown.read === CSV_RECIPIENTS ? shown : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    expect(counters).toEqual({
      total: CSV_RECIPIENTS,
      sent: 0,
      delivered: 0,
      read: CSV_RECIPIENTS,
      failed: 0,
      unknown: 0,
      pending: 0,
    });
    const run = await fixture.scheduler.runs.get(campaignId, runId);
    expect({ state: run.state, total: run.counters.total, read: run.counters.read }).toEqual({
      state: 'COMPLETED',
      total: CSV_RECIPIENTS,
      read: CSV_RECIPIENTS,
    });
    for (const caption of ['Messages per second', 'Rate limiter']) {
      const canvas = p.getByRole('figure', { name: caption }).locator('canvas');
      expect({ caption, canvases: await canvas.count() }).toEqual({ caption, canvases: 1 });
      const box = await canvas.boundingBox();
      expect((box?.width ?? 0) > 0 && (box?.height ?? 0) > 0).toBe(true);
    }
    // Opened again, the page reads the run's timeline through the console and charts the run's seconds.
    const timelineRead = p.waitForResponse((response) => response.url().endsWith(`/runs/${runId}/timeline`));
    await p.reload();
    expect((await timelineRead).status()).toBe(200);
    await waitForRunState(p, 'COMPLETED', UI_TIMEOUT_MS);
    const messagesChart = p.getByRole('figure', { name: 'Messages per second' });
    await waitUntil(
      "the messages chart to show the run's seconds",
      async () => Number(await messagesChart.getAttribute('data-active-seconds')) > 0,
      { timeoutMs: UI_TIMEOUT_MS, intervalMs: 500 },
    );
    await scrollToTop(p);
    await saveScreenshot(p, 'run-completed');
  }, 300_000);

  it('shows the run page at phone width without a horizontal scroll of the page', async () => {
    const p = page();
    const { campaignId, runId } = made;
    if (campaignId === undefined || runId === undefined) throw new Error('no run from the run test');
    await p.setViewportSize(PHONE_VIEWPORT);
    await signIn(p, consoleUrl(), fixture.tenantKey);
    await openRoute(p, consoleUrl(), `/campaigns/${campaignId}/runs/${runId}`);
    await waitForRunState(p, 'COMPLETED', UI_TIMEOUT_MS);
    const widths = await p.evaluate<{ page: number; viewport: number }>(
      '({ page: document.documentElement.scrollWidth, viewport: window.innerWidth })',
    );
    expect(widths.page).toBeLessThanOrEqual(widths.viewport);
    await scrollToTop(p);
    await saveScreenshot(p, 'run-phone');
  }, 120_000);

  it('pauses a run, whose sends stop, and resumes it, whose sends go on', async () => {
    const p = page();
    const name = 'Autumn launch';
    const campaignId = await createCampaignWithAudience(fixture, name, {
      count: LONG_RUN_RECIPIENTS,
      first: 10_000,
    });
    await signIn(p, consoleUrl(), fixture.tenantKey);
    await openRoute(p, consoleUrl(), `/campaigns/${campaignId}`);
    await headingNamed(p, name).waitFor({ timeout: UI_TIMEOUT_MS });
    await confirmAction(p, 'Start run');
    const runLink = p.getByRole('link', { name: /^Run / }).first();
    await runLink.waitFor({ timeout: UI_TIMEOUT_MS });
    await runLink.click();
    await p.getByTestId('run-state').waitFor({ timeout: UI_TIMEOUT_MS });
    const runId = lastRouteSegment(p);
    const sendsShown = async (): Promise<number> => sendsOf(await readCounters(p));
    await waitUntil('sends under way', async () => (await sendsShown()) >= 100, {
      timeoutMs: 180_000,
      intervalMs: 500,
    });

    const pauseText = await confirmAction(p, 'Pause');
    expect(pauseText).toContain('Pause: sending stops');
    await waitForRunState(p, 'PAUSED', UI_TIMEOUT_MS);
    // Batches already claimed finish; then nothing more is sent while the run is paused.
    const paused = await steadyValue('the sends to stop', sendsShown, 6);
    const counters = await readCounters(p);
    expect(counters.pending).toBeGreaterThan(0);
    expect(paused).toBeLessThan(LONG_RUN_RECIPIENTS);
    const run = await fixture.scheduler.runs.get(campaignId, runId);
    expect({ state: run.state, sends: sendsOf(run.counters) }).toEqual({ state: 'PAUSED', sends: paused });
    expect(await p.getByRole('button', { name: 'Resume', exact: true }).isEnabled()).toBe(true);
    expect(await p.getByRole('button', { name: 'Pause', exact: true }).isEnabled()).toBe(false);
    await scrollToTop(p);
    await saveScreenshot(p, 'run-paused');

    await confirmAction(p, 'Resume');
    await waitUntil('the sends to go on', async () => (await sendsShown()) >= paused + 60, {
      timeoutMs: 180_000,
      intervalMs: 500,
    });
    expect(await runStateShown(p)).toBe('RUNNING');
    await scrollToTop(p);
    await saveScreenshot(p, 'run-resumed');
    // Stopped here: the credential's few sends a second are for the tests after this one.
    await fixture.scheduler.runs.act(campaignId, runId, 'stop');
    await waitForRun(fixture.scheduler, campaignId, ['STOPPED']);
  }, 420_000);

  it('resurrects a tombstoned subscriber and replays the events it missed', async () => {
    const p = page();
    const subscriber = await LoopbackSubscriber.start();
    const hookUrl = subscriber.url('/ums-events');
    try {
      subscriber.mode = { kind: 'status', status: 503 };
      const campaignId = await createCampaignWithAudience(fixture, 'Delivery updates', {
        count: SUBSCRIBER_RECIPIENTS,
        first: 20_000,
      });
      const hook = await registerInternalSubscriber(
        fixture.urls.dispatcher,
        { operatorKey: fixture.stack.operatorKey, tenantId: CONSOLE_TENANT },
        {
          url: hookUrl,
          eventTypes: ['message.status'],
          campaignId,
          internal: true,
          maxEventsPerRequest: 1,
        },
      );
      subscriber.secret = hook.secret;
      await fixture.scheduler.campaigns.act(campaignId, 'start');
      await waitUntil(
        'the failing subscriber tombstoned',
        async () => (await fixture.dispatcher.subscribers.get(hook.id)).state === 'DEAD',
        { timeoutMs: 120_000, intervalMs: 500 },
      );
      // Events keep coming while it is dead: each is kept as MISSED. Counted once all have come.
      const run = await waitForRun(fixture.scheduler, campaignId, ['COMPLETED']);
      await waitUntil(
        'every message read',
        async () =>
          (await fixture.scheduler.runs.get(campaignId, run.id)).counters.read === SUBSCRIBER_RECIPIENTS,
        { timeoutMs: 120_000, intervalMs: 500 },
      );
      const missedNow = async (): Promise<number> =>
        (await fixture.dispatcher.deliveries.list(hook.id, { state: 'MISSED', limit: 500 })).items.length;
      const missed = await steadyValue('the missed events counted', missedNow, 3);
      expect(missed).toBeGreaterThan(CONSOLE_FAILURE_THRESHOLD);
      expect(subscriber.acceptedCount).toBe(0);

      await signIn(p, consoleUrl(), fixture.tenantKey);
      await openRoute(p, consoleUrl(), '/subscribers');
      await headingNamed(p, 'Subscribers').waitFor({ timeout: UI_TIMEOUT_MS });
      const listed = p.getByRole('row').filter({ hasText: hookUrl });
      await waitUntil('the subscriber listed as DEAD', async () =>
        ((await listed.textContent()) ?? '').includes('DEAD'),
      );
      await openRoute(p, consoleUrl(), `/subscribers/${hook.id}`);
      await headingNamed(p, 'Deliveries').waitFor({ timeout: UI_TIMEOUT_MS });
      expect(await p.getByTestId('subscriber-state').textContent()).toBe('DEAD');
      const deliveries = p.getByRole('region', { name: 'Deliveries', exact: true }).getByRole('table');
      // A row whose state badge reads exactly `state` (the header's "Delivered" column is none).
      const rowsIn = (state: string): Promise<number> =>
        deliveries
          .getByRole('row')
          .filter({ has: p.getByText(state, { exact: true }) })
          .count();
      await waitUntil(
        'the missed deliveries listed',
        async () => {
          const shown = await rowsIn('MISSED');
          if (shown === missed) return true;
          const rows = await deliveries.getByRole('row').count();
          throw new Error(`${shown} MISSED rows of ${rows} shown, ${await missedNow()} MISSED by the API`);
        },
        { timeoutMs: UI_TIMEOUT_MS, intervalMs: 500 },
      );

      subscriber.mode = { kind: 'ok' };
      await confirmAction(p, 'Resurrect', { check: ['Replay missed events'] });
      await waitUntil('the missed events replayed', () => subscriber.acceptedCount === missed, {
        timeoutMs: 120_000,
        intervalMs: 500,
      });
      await waitUntil(
        'the subscriber alive again',
        async () => (await fixture.dispatcher.subscribers.get(hook.id)).state === 'ALIVE',
        { timeoutMs: 60_000, intervalMs: 500 },
      );
      expect(subscriber.invalidSignatures()).toBe(0);
      await p.reload();
      await headingNamed(p, 'Deliveries').waitFor({ timeout: UI_TIMEOUT_MS });
      await waitUntil(
        'the replayed deliveries listed as delivered',
        async () => {
          const shown = { delivered: await rowsIn('DELIVERED'), missed: await rowsIn('MISSED') };
          if (shown.delivered === missed && shown.missed === 0) return true;
          throw new Error(`${shown.delivered} DELIVERED and ${shown.missed} MISSED rows shown`);
        },
        { timeoutMs: UI_TIMEOUT_MS, intervalMs: 500 },
      );
      await waitUntil(
        'the page showing the subscriber ALIVE',
        async () => (await p.getByTestId('subscriber-state').textContent()) === 'ALIVE',
      );
      await scrollToTop(p);
      await saveScreenshot(p, 'subscriber-resurrected');
    } finally {
      await subscriber.stop();
    }
  }, 420_000);

  it('shows the 403 page, with the code and the scope, to a key without campaigns:read', async () => {
    const p = page();
    await signIn(p, consoleUrl(), fixture.narrowKey, { expectHeading: '403 Forbidden' });
    const text = (await p.locator('body').textContent()) ?? '';
    expect(text).toContain('AUTH_SCOPE_MISSING');
    expect(text).toContain('This route needs the campaigns:read scope');
    expect(text).toContain('This page needs the campaigns:read scope.');
    await saveScreenshot(p, 'forbidden');
  }, 120_000);

  it('lists the campaigns with their latest runs and progress', async () => {
    const p = page();
    await signIn(p, consoleUrl(), fixture.tenantKey);
    const { campaignName } = made;
    if (campaignName === undefined) throw new Error('no campaign from the CSV test');
    const row = p.getByRole('row').filter({ has: p.getByRole('link', { name: campaignName, exact: true }) });
    await waitUntil('the completed campaign at 100%', async () => {
      const bar = row.getByRole('progressbar');
      return (await bar.count()) === 1 && (await bar.getAttribute('aria-valuenow')) === '100';
    });
    expect((await row.textContent()) ?? '').toContain('COMPLETED');
    expect(await p.getByRole('row').filter({ hasText: 'STOPPED' }).count()).toBe(1);
    await saveScreenshot(p, 'campaigns-live');
  }, 120_000);
});
