import { RedisErrorCode } from '@ums/contracts';
import { ChunkTracker, describeWait } from './chunk-tracker';

const mysql = { dependency: 'mysql', code: 'ECONNREFUSED' } as const;

describe('ChunkTracker', () => {
  it('reports a chunk stalled past the limit', () => {
    const tracker = new ChunkTracker();
    const chunk = tracker.begin('t[0]@0', 1_000);
    expect(tracker.stalled(2_000, 5_000)).toBeUndefined();
    expect(tracker.stalled(7_000, 5_000)?.label).toBe('t[0]@0');
    tracker.end(chunk);
    expect(tracker.stalled(7_000, 5_000)).toBeUndefined();
  });

  it('does not call a chunk waiting for a dependency stalled, and restarts its clock when it resumes', () => {
    const tracker = new ChunkTracker();
    const chunk = tracker.begin('t[0]@0', 0);
    expect(tracker.waiting(chunk, mysql, 1_000)).toBeUndefined();
    expect(tracker.waiting(chunk, mysql, 3_000)).toEqual({ ...mysql, since: 1_000 });
    expect(tracker.stalled(60_000, 5_000)).toBeUndefined();
    expect(tracker.longestWait()).toEqual({ ...mysql, since: 1_000 });
    expect(describeWait(tracker.longestWait() ?? { ...mysql, since: 0 }, 13_000)).toBe(
      'waiting for mysql (ECONNREFUSED) since 12 s',
    );
    expect(tracker.resumed(chunk, 60_000)).toEqual({ ...mysql, since: 1_000 });
    expect(tracker.longestWait()).toBeUndefined();
    expect(tracker.stalled(64_000, 5_000)).toBeUndefined();
    expect(tracker.stalled(66_000, 5_000)?.label).toBe('t[0]@0');
  });

  it('still reports a truly stalled chunk beside one that waits', () => {
    const tracker = new ChunkTracker();
    tracker.waiting(tracker.begin('t[0]@0', 0), mysql, 0);
    tracker.begin('t[0]@10', 0);
    expect(tracker.stalled(10_000, 5_000)?.label).toBe('t[0]@10');
  });

  it('restarts the stall clock when part of a split chunk succeeds', () => {
    const tracker = new ChunkTracker();
    const chunk = tracker.begin('t[0]@0', 0);
    tracker.progressed(chunk, 4_000);
    expect(tracker.stalled(8_000, 5_000)).toBeUndefined();
    expect(tracker.stalled(9_001, 5_000)?.label).toBe('t[0]@0');
  });

  it('names the oldest wait', () => {
    const tracker = new ChunkTracker();
    tracker.waiting(
      tracker.begin('a', 0),
      { dependency: 'redis', code: RedisErrorCode.ConnectionClosed },
      5_000,
    );
    tracker.waiting(tracker.begin('b', 0), mysql, 2_000);
    expect(tracker.longestWait()?.dependency).toBe('mysql');
    expect(tracker.resumed(tracker.begin('c', 0))).toBeUndefined();
  });
});
