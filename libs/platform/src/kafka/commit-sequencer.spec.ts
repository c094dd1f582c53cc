import { CommitSequencer } from './commit-sequencer';

/** A payload that records resolves and commits; each commit waits until released. */
function recordingPayload() {
  const resolved: string[] = [];
  const committed: string[] = [];
  const releases: (() => void)[] = [];
  const payload = {
    resolveOffset: (offset: string) => {
      resolved.push(offset);
    },
    commitOffsetsIfNecessary: async (offsets?: {
      topics: { topic: string; partitions: { partition: number; offset: string }[] }[];
    }) => {
      await new Promise<void>((release) => releases.push(release));
      committed.push(offsets?.topics[0]?.partitions[0]?.offset ?? '?');
    },
  };
  return { payload, resolved, committed, releases };
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('CommitSequencer', () => {
  it('commits only below the first unfinished offset', async () => {
    const { payload, resolved, committed, releases } = recordingPayload();
    const commits = new CommitSequencer({ payload, topic: 't', partition: 0, offsets: ['10', '11', '12'] });
    await commits.finished(['11']);
    expect(resolved).toEqual([]);
    const first = commits.finished(['10']);
    await flush();
    releases.shift()?.();
    await first;
    expect(resolved).toEqual(['11']);
    expect(committed).toEqual(['12']);
  });

  it('runs one commit at a time, with the newest offset, never going backwards', async () => {
    const { payload, committed, releases } = recordingPayload();
    const commits = new CommitSequencer({ payload, topic: 't', partition: 3, offsets: ['1', '2', '3'] });
    const a = commits.finished(['1']);
    await flush();
    const b = commits.finished(['2']);
    const c = commits.finished(['3']);
    await flush();
    releases.shift()?.();
    await flush();
    releases.shift()?.();
    await Promise.all([a, b, c]);
    await commits.settled();
    expect(committed).toEqual(['2', '4']);
    expect(releases).toHaveLength(0);
  });
});
