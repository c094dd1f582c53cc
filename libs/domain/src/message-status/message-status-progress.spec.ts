import { MessageStatus as S } from '@ums/contracts';
import { decideStatus } from './message-status-progress';

const ALL = Object.values(S);

// The whole table, written out by hand: current (rows) x reported (columns) -> outcome.
// '+' applies, 'd' duplicate, 'r' regression, 't' terminal, '-' not reportable.
const COLUMNS = [S.Pending, S.Sending, S.Sent, S.Delivered, S.Read, S.Failed, S.Unknown, S.Skipped];
const TABLE: Record<S, string> = {
  //                    P  Sg St D  R  F  U  Sk
  [S.Pending]: /*    */ '-  -  +  +  +  +  -  -',
  [S.Sending]: /*    */ '-  -  +  +  +  +  -  -',
  [S.Sent]: /*       */ '-  -  d  +  +  +  -  -',
  [S.Delivered]: /*  */ '-  -  r  d  +  r  -  -',
  [S.Read]: /*       */ '-  -  r  r  d  r  -  -',
  [S.Failed]: /*     */ '-  -  t  t  t  d  -  -',
  [S.Unknown]: /*    */ '-  -  +  +  +  +  -  -',
  [S.Skipped]: /*    */ '-  -  t  t  t  t  -  -',
};

describe('decideStatus', () => {
  it.each(
    ALL.flatMap((current) =>
      COLUMNS.map((reported, i) => [current, reported, TABLE[current].split(/\s+/)[i]] as const),
    ),
  )('%s + %s -> %s', (current, reported, expected) => {
    const decision = decideStatus(current, reported);
    const code = decision.apply
      ? '+'
      : { duplicate: 'd', regression: 'r', terminal: 't', 'not-reportable': '-' }[decision.why];
    expect(code).toBe(expected);
    if (decision.apply) expect(decision.next).toBe(reported);
  });

  it('never moves a row backwards, whatever order callbacks arrive in', () => {
    const reports = [S.Sent, S.Delivered, S.Read, S.Failed];
    const rank = (s: S) => [S.Sent, S.Delivered, S.Read].indexOf(s);
    for (let round = 0; round < 500; round++) {
      let state: S = S.Sending;
      const arrivals = Array.from(
        { length: 6 },
        () => reports[Math.floor(Math.random() * reports.length)] as S,
      );
      for (const reported of arrivals) {
        const before = state;
        const decision = decideStatus(state, reported);
        if (decision.apply) state = decision.next;
        if (before !== S.Sending && before !== S.Failed && state !== S.Failed)
          expect(rank(state)).toBeGreaterThanOrEqual(rank(before));
        if (before === S.Failed) expect(state).toBe(S.Failed);
      }
    }
  });
});
