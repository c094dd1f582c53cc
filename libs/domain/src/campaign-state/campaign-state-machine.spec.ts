import {
  CampaignEvent as E,
  CampaignState as S,
  canCreateRuns,
  canImportAudience,
  transitionCampaign,
} from './campaign-state-machine';

// The whole table, written out by hand: state (rows) x event (columns) -> next state.
// D DRAFT, A ACTIVE, P PAUSED, S STOPPED, C COMPLETED, X ARCHIVED, '-' refused.
const COLUMNS = [E.Start, E.Pause, E.Resume, E.Stop, E.Complete, E.Reopen, E.Archive];
const TABLE: Record<S, string> = {
  //                    start pause resume stop complete reopen archive
  [S.Draft]: /*      */ 'A     -     -      -    -        -      X',
  [S.Active]: /*     */ '-     P     -      S    C        -      -',
  [S.Paused]: /*     */ '-     -     A      S    -        -      -',
  [S.Stopped]: /*    */ '-     -     -      -    -        A      X',
  [S.Completed]: /*  */ '-     -     -      -    -        A      X',
  [S.Archived]: /*   */ '-     -     -      -    -        -      -',
};
const CODES: Record<string, S> = {
  D: S.Draft,
  A: S.Active,
  P: S.Paused,
  S: S.Stopped,
  C: S.Completed,
  X: S.Archived,
};

const everyPair = Object.values(S).flatMap((from) =>
  COLUMNS.map((event, i) => [from, event, TABLE[from].split(/\s+/)[i]] as const),
);

describe('transitionCampaign', () => {
  it.each(everyPair)('%s + %s -> %s', (from, event, code) => {
    const result = transitionCampaign(from, event);
    if (code === '-') {
      expect(result).toEqual({
        ok: false,
        code: 'CAMPAIGN_TRANSITION_REFUSED',
        reason: `a ${from} campaign cannot ${event}`,
      });
    } else {
      expect(result).toEqual({ ok: true, next: CODES[code ?? ''] });
    }
  });

  it('enumerates all 6 x 7 pairs, every state and event exactly once', () => {
    expect(Object.keys(TABLE).sort()).toEqual(Object.values(S).sort());
    expect([...COLUMNS].sort()).toEqual(Object.values(E).sort());
    for (const row of Object.values(TABLE)) {
      expect(row.split(/\s+/).every((c) => c === '-' || CODES[c] !== undefined)).toBe(true);
      expect(row.split(/\s+/)).toHaveLength(COLUMNS.length);
    }
    expect(everyPair).toHaveLength(42);
  });

  it('never leaves ARCHIVED', () => {
    for (const event of Object.values(E)) expect(transitionCampaign(S.Archived, event).ok).toBe(false);
  });

  it('reaches every state from DRAFT', () => {
    const seen = new Set<S>([S.Draft]);
    let frontier: S[] = [S.Draft];
    while (frontier.length > 0) {
      frontier = frontier.flatMap((from) =>
        Object.values(E).flatMap((event) => {
          const r = transitionCampaign(from, event);
          if (!r.ok || seen.has(r.next)) return [];
          seen.add(r.next);
          return [r.next];
        }),
      );
    }
    expect([...seen].sort()).toEqual(Object.values(S).sort());
  });
});

describe('campaign capabilities', () => {
  // state -> [may import audience, may create runs]
  const CAPABILITIES: Record<S, readonly [boolean, boolean]> = {
    [S.Draft]: [true, false],
    [S.Active]: [true, true],
    [S.Paused]: [true, false],
    [S.Stopped]: [false, false],
    [S.Completed]: [false, false],
    [S.Archived]: [false, false],
  };

  it.each(Object.values(S))('%s', (state) => {
    expect([canImportAudience(state), canCreateRuns(state)]).toEqual(CAPABILITIES[state]);
  });

  it('runs are only created in a state that also accepts audience imports', () => {
    for (const state of Object.values(S))
      if (canCreateRuns(state)) expect(canImportAudience(state)).toBe(true);
  });
});
