import { setMaxListeners } from 'node:events';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { Agent, fetch } from 'undici';

export interface ConsoleLoadOptions {
  /** The operator console's server (its `/api/scheduler` proxy). */
  readonly consoleUrl: string;
  /** A key with campaigns:read and messages:read, sent as the browser sends it. */
  readonly apiKey: string;
  readonly consoles: number;
}

/** What the consoles received and asked while they were open. */
export interface ConsoleLoadFigures {
  readonly consoles: number;
  /** `campaigns` frames of the live campaigns streams, all consoles together. */
  readonly campaignFrames: number;
  /** `history` and `sample` frames of the run's live streams. */
  readonly runHistories: number;
  readonly runSamples: number;
  /** The run page's ordinary API calls (the run, the first page of its messages), and those that failed. */
  readonly pageCalls: number;
  readonly pageCallsFailed: number;
  /** Streams that answered an error or ended while the consoles were open (each is opened again). */
  readonly streamErrors: number;
}

interface Counts {
  campaignFrames: number;
  runHistories: number;
  runSamples: number;
  pageCalls: number;
  pageCallsFailed: number;
  streamErrors: number;
}

/** The newest campaign's latest run, as a `campaigns` frame names it. */
interface WatchedRun {
  readonly campaignId: string;
  readonly runId: string;
}

/**
 * N operator consoles kept open against the console server while a benchmark runs, each loading
 * what the browser's pages load: the live campaigns stream (`GET /api/scheduler/v1/live/campaigns`)
 * and, once a frame names the newest campaign's run, that run's live stream; both read as the web
 * page reads them, server-sent events over `fetch` with the key in `Authorization` (EventSource
 * cannot send it), parsed with `eventsource-parser`. Each also makes the run page's ordinary API
 * calls (the run, the first page of its messages) once a second. It measures the API side (the
 * console server's proxy, the scheduler's streams and queries), not browser rendering: no page is
 * drawn here.
 */
export class ConsoleLoad {
  private readonly abort = new AbortController();
  /**
   * The consoles' connections, closed with them: a pool left open (a spare connection fetch opens
   * after an abort) would hold the console server's shutdown, and it the scheduler's.
   */
  private readonly agent = new Agent();
  private readonly counts: Counts = {
    campaignFrames: 0,
    runHistories: 0,
    runSamples: 0,
    pageCalls: 0,
    pageCallsFailed: 0,
    streamErrors: 0,
  };
  private readonly running: Promise<void>[] = [];

  private constructor(private readonly options: ConsoleLoadOptions) {}

  static start(options: ConsoleLoadOptions): ConsoleLoad {
    const load = new ConsoleLoad(options);
    // Every console's streams, calls and pauses listen on the one signal at once.
    setMaxListeners(16 + options.consoles * 8, load.abort.signal);
    for (let i = 0; i < options.consoles; i++) load.running.push(load.console());
    return load;
  }

  /** Closes every console (streams and polls) and answers what they saw. */
  async stop(): Promise<ConsoleLoadFigures> {
    this.abort.abort();
    await Promise.all(this.running);
    await this.agent.destroy();
    return { consoles: this.options.consoles, ...this.counts };
  }

  private get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  /** One console: the campaigns stream, then the run's stream and the page's calls beside it. */
  private async console(): Promise<void> {
    let watched: WatchedRun | undefined;
    const run = new Promise<WatchedRun>((resolve) => {
      void this.stream('/v1/live/campaigns', (event) => {
        if (event.event !== 'campaigns') return;
        this.counts.campaignFrames++;
        const found = newestRun(event.data);
        if (watched === undefined && found !== undefined) {
          watched = found;
          resolve(found);
        }
      });
    });
    const stoppedFirst = new Promise<undefined>((resolve) =>
      this.abort.signal.addEventListener('abort', () => resolve(undefined), { once: true }),
    );
    const found = await Promise.race([run, stoppedFirst]);
    if (found === undefined) return;
    const path = `/v1/live/campaigns/${found.campaignId}/runs/${found.runId}`;
    await Promise.all([
      this.stream(path, (event) => {
        if (event.event === 'history') this.counts.runHistories++;
        if (event.event === 'sample') this.counts.runSamples++;
      }),
      this.pollPage(found),
    ]);
  }

  /** Reads one event stream until the consoles close, opening it again a second after it fails or ends. */
  private async stream(path: string, onEvent: (event: EventSourceMessage) => void): Promise<void> {
    while (!this.stopped) {
      try {
        const response = await fetch(this.url(path), {
          headers: { authorization: `Bearer ${this.options.apiKey}`, accept: 'text/event-stream' },
          signal: this.abort.signal,
          dispatcher: this.agent,
        });
        if (!response.ok || response.body === null) throw new Error(`${path} answered ${response.status}`);
        const parser = createParser({ onEvent });
        for await (const chunk of response.body.pipeThrough(new TextDecoderStream())) parser.feed(chunk);
        if (!this.stopped) this.counts.streamErrors++;
      } catch {
        if (!this.stopped) this.counts.streamErrors++;
      }
      await this.pause(1_000);
    }
  }

  /** The run page's calls once a second: the run, and the first page of its messages. */
  private async pollPage(run: WatchedRun): Promise<void> {
    const base = `/v1/campaigns/${run.campaignId}/runs/${run.runId}`;
    while (!this.stopped) {
      for (const path of [base, `${base}/messages?limit=50`]) {
        try {
          const response = await fetch(this.url(path), {
            headers: { authorization: `Bearer ${this.options.apiKey}`, accept: 'application/json' },
            signal: this.abort.signal,
            dispatcher: this.agent,
          });
          await response.arrayBuffer();
          this.counts.pageCalls++;
          if (!response.ok) this.counts.pageCallsFailed++;
        } catch {
          if (!this.stopped) this.counts.pageCallsFailed++;
        }
      }
      await this.pause(1_000);
    }
  }

  private url(path: string): string {
    return `${this.options.consoleUrl}/api/scheduler${path}`;
  }

  private pause(ms: number): Promise<void> {
    const signal = this.abort.signal;
    return new Promise((resolve) => {
      const onAbort = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** The newest campaign with a run, from a `campaigns` frame's data (newest first). */
export function newestRun(data: string): WatchedRun | undefined {
  const frame = JSON.parse(data) as { campaigns?: unknown };
  if (!Array.isArray(frame.campaigns)) return undefined;
  for (const item of frame.campaigns as unknown[]) {
    if (typeof item !== 'object' || item === null) continue;
    const { id, latestRun } = item as { id?: unknown; latestRun?: unknown };
    const runId =
      typeof latestRun === 'object' && latestRun !== null ? (latestRun as { id?: unknown }).id : undefined;
    if (typeof id === 'string' && typeof runId === 'string') return { campaignId: id, runId };
  }
  return undefined;
}
