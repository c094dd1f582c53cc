import { type HubEvent, LiveHub, type LiveTopicKind, type LiveTopicSpec } from './live-hub';

const MINUTE = 60_000;

/** A hub on a hand-moved clock, whose timer only records whether it runs; ticks are called by the test. */
function testHub(graceMs = 5 * MINUTE) {
  let now = 1_000_000;
  const loads: LiveTopicKind[] = [];
  let timers = 0;
  const hub = new LiveHub({
    tickMs: 1000,
    historyMs: 15 * MINUTE,
    graceMs,
    keepAliveMs: 15_000,
    now: () => now,
    schedule: () => {
      timers += 1;
      return () => (timers -= 1);
    },
    onLoad: (kind) => loads.push(kind),
  });
  return {
    hub,
    loads,
    timers: () => timers,
    /** Moves the clock one second on and runs the tick. */
    second: async (): Promise<void> => {
      now += 1000;
      await hub.tick();
    },
    advance: (ms: number): void => {
      now += ms;
    },
  };
}

/** A run topic whose load answers the counter it is given, and counts its loads. */
function runTopic(key = 'run:7', source = { sent: 0, gone: false }) {
  let calls = 0;
  const spec: LiveTopicSpec<{ at: string; sent: number }> = {
    key,
    kind: 'run',
    keepsHistory: true,
    load: (at) => {
      calls += 1;
      return Promise.resolve(source.gone ? undefined : { at: at.toISOString(), sent: source.sent });
    },
  };
  return { spec, source, calls: () => calls };
}

function recorder<F>() {
  const events: HubEvent<F>[] = [];
  return {
    events,
    listener: (event: HubEvent<F>): void => void events.push(event),
    frames: (): F[] =>
      events.flatMap((e) => (e.type === 'frame' ? [e.frame] : e.type === 'history' ? [...e.frames] : [])),
  };
}

describe('LiveHub', () => {
  it('loads a topic once a tick for ten subscribers, and gives each the same frame', async () => {
    const { hub, loads, second } = testHub();
    const topic = runTopic();
    const consoles = Array.from({ length: 10 }, () => recorder<{ at: string; sent: number }>());
    for (const c of consoles) hub.subscribe(topic.spec, c.listener);
    for (let i = 1; i <= 3; i += 1) {
      topic.source.sent = i * 10;
      await second();
    }
    expect(topic.calls()).toBe(3);
    expect(loads).toEqual(['run', 'run', 'run']);
    for (const c of consoles) expect(c.frames().map((f) => f.sent)).toEqual([10, 20, 30]);
    expect(new Set(consoles.map((c) => JSON.stringify(c.events))).size).toBe(1);
  });

  it('sends a new subscriber the kept history first, then what the next ticks load', async () => {
    const { hub, second } = testHub();
    const topic = runTopic();
    const first = recorder<{ sent: number }>();
    hub.subscribe(topic.spec, first.listener);
    expect(first.events).toEqual([{ type: 'history', frames: [] }]);
    for (let i = 1; i <= 4; i += 1) {
      topic.source.sent = i;
      await second();
    }
    const late = recorder<{ sent: number }>();
    hub.subscribe(topic.spec, late.listener);
    expect(late.events).toHaveLength(1);
    expect(late.events[0]?.type).toBe('history');
    expect(late.frames().map((f) => f.sent)).toEqual([1, 2, 3, 4]);
    topic.source.sent = 5;
    await second();
    expect(late.frames().map((f) => f.sent)).toEqual([1, 2, 3, 4, 5]);
  });

  it('keeps at most the history window', async () => {
    const { hub, second, advance } = testHub();
    const topic = runTopic();
    hub.subscribe(topic.spec, () => undefined);
    await second();
    advance(15 * MINUTE);
    await second();
    await second();
    const late = recorder<{ at: string }>();
    hub.subscribe(topic.spec, late.listener);
    expect(late.frames()).toHaveLength(2);
  });

  it('stops loading a topic nobody watches, keeps its history for the grace, then forgets it', async () => {
    const { hub, second, advance, timers } = testHub(5 * MINUTE);
    const topic = runTopic();
    const subs = [hub.subscribe(topic.spec, () => undefined), hub.subscribe(topic.spec, () => undefined)];
    await second();
    await second();
    expect(hub.watched('run')).toBe(1);
    for (const s of subs) s.unsubscribe();
    subs[0]?.unsubscribe();
    expect(hub.watched('run')).toBe(0);
    await second();
    await second();
    expect(topic.calls()).toBe(2);
    const back = recorder<{ sent: number }>();
    const again = hub.subscribe(topic.spec, back.listener);
    expect(back.frames()).toHaveLength(2);
    again.unsubscribe();
    advance(5 * MINUTE);
    await second();
    expect(hub.size).toBe(0);
    expect(timers()).toBe(0);
    const fresh = recorder<{ sent: number }>();
    hub.subscribe(topic.spec, fresh.listener);
    expect(fresh.events).toEqual([{ type: 'history', frames: [] }]);
  });

  it('runs its timer only while it holds topics', async () => {
    const { hub, timers } = testHub(0);
    expect(timers()).toBe(0);
    const a = hub.subscribe(runTopic('run:1').spec, () => undefined);
    const b = hub.subscribe(runTopic('run:2').spec, () => undefined);
    expect(timers()).toBe(1);
    a.unsubscribe();
    expect(timers()).toBe(1);
    b.unsubscribe();
    expect(timers()).toBe(0);
    expect(hub.ticking).toBe(false);
    await hub.tick();
  });

  it('loads each distinct topic once a tick, and a campaign list without history', async () => {
    const { hub, loads, second } = testHub();
    const list: LiveTopicSpec<string> = {
      key: 'campaigns:acme',
      kind: 'campaigns',
      keepsHistory: false,
      load: (at) => Promise.resolve(at.toISOString()),
    };
    const early = recorder<string>();
    hub.subscribe(list, early.listener);
    hub.subscribe(list, () => undefined);
    hub.subscribe(runTopic('run:1').spec, () => undefined);
    hub.subscribe(runTopic('run:2').spec, () => undefined);
    expect(early.events).toEqual([]);
    await second();
    expect(loads.sort()).toEqual(['campaigns', 'run', 'run']);
    const late = recorder<string>();
    hub.subscribe(list, late.listener);
    expect(late.events).toEqual([{ type: 'frame', frame: early.frames()[0] }]);
  });

  it('does not load a topic again while its last load is still running', async () => {
    const { hub, second } = testHub();
    let release: () => void = () => undefined;
    let calls = 0;
    const slow: LiveTopicSpec<number> = {
      key: 'run:slow',
      kind: 'run',
      keepsHistory: true,
      load: () => {
        calls += 1;
        return new Promise((resolve) => (release = () => resolve(calls)));
      },
    };
    hub.subscribe(slow, () => undefined);
    const first = second();
    const secondTick = second();
    await secondTick;
    expect(calls).toBe(1);
    release();
    await first;
    const third = second();
    expect(calls).toBe(2);
    release();
    await third;
  });

  it('sends keep-alives every keepAliveMs, and ends subscribers when the topic is gone', async () => {
    const { hub, second, advance } = testHub();
    const topic = runTopic();
    const watcher = recorder<{ sent: number }>();
    hub.subscribe(topic.spec, watcher.listener);
    advance(14_000);
    await second();
    expect(watcher.events.filter((e) => e.type === 'keep-alive')).toHaveLength(1);
    topic.source.gone = true;
    await second();
    expect(watcher.events.at(-1)).toEqual({ type: 'end' });
    expect(hub.size).toBe(0);
  });

  it('reports a failed load and tries again on the next tick', async () => {
    const errors: unknown[] = [];
    let fail = true;
    const hub = new LiveHub({
      tickMs: 1000,
      historyMs: MINUTE,
      graceMs: 0,
      keepAliveMs: 15_000,
      schedule: () => () => undefined,
      onLoadError: (_kind, error) => errors.push(error),
    });
    const watcher = recorder<number>();
    hub.subscribe<number>(
      {
        key: 'run:x',
        kind: 'run',
        keepsHistory: true,
        load: () => (fail ? Promise.reject(new Error('down')) : Promise.resolve(1)),
      },
      watcher.listener,
    );
    await hub.tick();
    fail = false;
    await hub.tick();
    expect(errors).toHaveLength(1);
    expect(watcher.frames()).toEqual([1]);
  });

  it('ends every subscriber on close and stops its timer', () => {
    const { hub, timers } = testHub();
    const watcher = recorder<unknown>();
    hub.subscribe(runTopic().spec, watcher.listener);
    hub.close();
    expect(watcher.events.at(-1)).toEqual({ type: 'end' });
    expect(timers()).toBe(0);
    expect(hub.size).toBe(0);
  });
});
