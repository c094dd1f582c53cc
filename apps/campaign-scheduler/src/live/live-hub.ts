import { FrameHistory } from './frame-history';

/** What a live topic is: a tenant's (or every tenant's) campaign list, or one run. */
export type LiveTopicKind = 'campaigns' | 'run';

export const LIVE_TOPIC_KINDS: readonly LiveTopicKind[] = ['campaigns', 'run'];

/** A topic the hub loads once a tick while anyone watches it. */
export interface LiveTopicSpec<F> {
  /** Equal keys are one topic: their subscribers share each load. */
  readonly key: string;
  readonly kind: LiveTopicKind;
  /** Loads the topic's frame for the second `at`; undefined when the topic is gone (its run deleted). */
  readonly load: (at: Date) => Promise<F | undefined>;
  /** Keep the frames of the history window, sent at once to each new subscriber (runs). */
  readonly keepsHistory: boolean;
}

/** What a subscriber is sent: the kept frames (first, history topics only), frames, keep-alives, the end. */
export type HubEvent<F> =
  | { readonly type: 'history'; readonly frames: readonly F[] }
  | { readonly type: 'frame'; readonly frame: F }
  | { readonly type: 'keep-alive' }
  | { readonly type: 'end' };

export type HubListener<F> = (event: HubEvent<F>) => void;

/** A subscription's handle: unsubscribing twice does nothing more. */
export interface HubSubscription {
  unsubscribe(): void;
}

export interface LiveHubOptions {
  /** How often each watched topic is loaded (1 s: one frame a second). */
  readonly tickMs: number;
  /** How much of a history topic's past is kept (15 min). */
  readonly historyMs: number;
  /** How long a history topic's frames are kept after its last subscriber left. */
  readonly graceMs: number;
  /** How often each subscriber is sent a keep-alive. */
  readonly keepAliveMs: number;
  readonly now?: () => number;
  /** Runs `tick` every `everyMs` until the returned function is called (by default aligned to the clock's seconds). */
  readonly schedule?: (everyMs: number, tick: () => void) => () => void;
  /** Called once per load of a topic (the cost the hub keeps flat). */
  readonly onLoad?: (kind: LiveTopicKind) => void;
  readonly onLoadError?: (kind: LiveTopicKind, error: unknown) => void;
}

interface Subscriber {
  readonly listener: HubListener<unknown>;
  lastKeepAlive: number;
}

interface Topic {
  readonly spec: LiveTopicSpec<unknown>;
  readonly subscribers: Set<Subscriber>;
  readonly history: FrameHistory<unknown> | undefined;
  latest: { readonly frame: unknown } | undefined;
  loading: boolean;
  /** When its last subscriber left (epoch ms); undefined while watched. */
  idleSince: number | undefined;
}

/** How far past each second of the clock a tick runs: after the senders wrote the second that ended. */
const TICK_OFFSET_MS = 250;

/**
 * Runs `tick` every `everyMs`, each time TICK_OFFSET_MS past a multiple of `everyMs` of the clock (a
 * timeout armed again after each tick: no drift), until the returned function is called.
 */
function alignedSchedule(everyMs: number, tick: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const arm = (): void => {
    const phase = (((Date.now() - TICK_OFFSET_MS) % everyMs) + everyMs) % everyMs;
    timer = setTimeout(() => {
      tick();
      if (!stopped) arm();
    }, everyMs - phase);
  };
  arm();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/**
 * One per process: every tick it loads each topic that has at least one subscriber once, whatever the
 * number of subscribers, and hands the frame to all of them; a topic nobody watches is not loaded. A
 * run's frames of the last `historyMs` are kept while it is watched and `graceMs` after, so a console
 * that starts watching gets them at once. The timer runs only while there are topics.
 */
export class LiveHub {
  private readonly topics = new Map<string, Topic>();
  private readonly now: () => number;
  private readonly schedule: (everyMs: number, tick: () => void) => () => void;
  private stopTimer: (() => void) | undefined;

  constructor(private readonly options: LiveHubOptions) {
    this.now = options.now ?? Date.now;
    this.schedule = options.schedule ?? alignedSchedule;
  }

  /** Adds a subscriber to the topic (made on first use): history topics send their kept frames first. */
  subscribe<F>(spec: LiveTopicSpec<F>, listener: HubListener<F>): HubSubscription {
    const topic = this.topicOf(spec as LiveTopicSpec<unknown>);
    const subscriber: Subscriber = { listener: listener as HubListener<unknown>, lastKeepAlive: this.now() };
    topic.subscribers.add(subscriber);
    topic.idleSince = undefined;
    if (topic.history !== undefined) deliver(subscriber, { type: 'history', frames: topic.history.frames() });
    else if (topic.latest !== undefined) deliver(subscriber, { type: 'frame', frame: topic.latest.frame });
    this.stopTimer ??= this.schedule(this.options.tickMs, () => void this.tick());
    let done = false;
    return {
      unsubscribe: () => {
        if (done) return;
        done = true;
        this.leave(topic, subscriber);
      },
    };
  }

  /**
   * One tick: loads each watched topic not still loading from the last tick, once, and sends the frame to
   * its subscribers; sends keep-alives that are due; forgets topics idle past their grace. Resolves when
   * the tick's loads have settled.
   */
  async tick(): Promise<void> {
    const now = this.now();
    const at = new Date(Math.floor(now / 1000) * 1000);
    const loads: Promise<void>[] = [];
    for (const topic of [...this.topics.values()]) {
      if (topic.subscribers.size === 0) {
        this.forgetIfExpired(topic, now);
        continue;
      }
      topic.history?.trim(now);
      if (!topic.loading) loads.push(this.load(topic, at));
      for (const subscriber of topic.subscribers) {
        if (now - subscriber.lastKeepAlive < this.options.keepAliveMs) continue;
        subscriber.lastKeepAlive = now;
        deliver(subscriber, { type: 'keep-alive' });
      }
    }
    this.stopIfIdle();
    await Promise.all(loads);
  }

  /** Ends every subscription (shutdown) and stops the timer. */
  close(): void {
    for (const topic of this.topics.values()) this.end(topic);
    this.topics.clear();
    this.stopIfIdle();
  }

  /** The topics of a kind that have at least one subscriber (what each tick loads). */
  watched(kind: LiveTopicKind): number {
    let count = 0;
    for (const topic of this.topics.values()) {
      if (topic.spec.kind === kind && topic.subscribers.size > 0) count += 1;
    }
    return count;
  }

  /** Topics held: watched ones, and history topics within their grace. */
  get size(): number {
    return this.topics.size;
  }

  /** Whether the tick timer runs. */
  get ticking(): boolean {
    return this.stopTimer !== undefined;
  }

  private topicOf(spec: LiveTopicSpec<unknown>): Topic {
    const known = this.topics.get(spec.key);
    if (known !== undefined) return known;
    const topic: Topic = {
      spec,
      subscribers: new Set(),
      history: spec.keepsHistory ? new FrameHistory(this.options.historyMs) : undefined,
      latest: undefined,
      loading: false,
      idleSince: undefined,
    };
    this.topics.set(spec.key, topic);
    return topic;
  }

  private async load(topic: Topic, at: Date): Promise<void> {
    topic.loading = true;
    this.options.onLoad?.(topic.spec.kind);
    try {
      const frame = await topic.spec.load(at);
      if (this.topics.get(topic.spec.key) !== topic) return;
      if (frame === undefined) {
        this.end(topic);
        this.topics.delete(topic.spec.key);
        this.stopIfIdle();
        return;
      }
      topic.latest = { frame };
      topic.history?.add(at.getTime(), frame);
      for (const subscriber of topic.subscribers) deliver(subscriber, { type: 'frame', frame });
    } catch (error: unknown) {
      this.options.onLoadError?.(topic.spec.kind, error);
    } finally {
      topic.loading = false;
    }
  }

  private leave(topic: Topic, subscriber: Subscriber): void {
    if (!topic.subscribers.delete(subscriber) || topic.subscribers.size > 0) return;
    topic.idleSince = this.now();
    topic.latest = topic.history === undefined ? undefined : topic.latest;
    if (topic.history === undefined || this.options.graceMs === 0) this.topics.delete(topic.spec.key);
    this.stopIfIdle();
  }

  private forgetIfExpired(topic: Topic, now: number): void {
    if (topic.idleSince !== undefined && now - topic.idleSince >= this.options.graceMs) {
      this.topics.delete(topic.spec.key);
    }
  }

  private end(topic: Topic): void {
    for (const subscriber of [...topic.subscribers]) deliver(subscriber, { type: 'end' });
    topic.subscribers.clear();
  }

  /** Stops the timer once no topic is left (a history topic in its grace keeps it, to expire it). */
  private stopIfIdle(): void {
    if (this.topics.size > 0 || this.stopTimer === undefined) return;
    this.stopTimer();
    this.stopTimer = undefined;
  }
}

/** A listener's failure (a connection that broke while written to) is its own; the others still get theirs. */
function deliver(subscriber: Subscriber, event: HubEvent<unknown>): void {
  try {
    subscriber.listener(event);
  } catch {
    // The connection reports its own failure through its close; nothing to do for the others.
  }
}
