import { MessageStatus as S } from '@ums/contracts';
import { MessageEvent as E, sourceStatesOf, transitionMessage } from './message-state-machine';

// The whole table, written out by hand: status (rows) x event (columns) -> next status.
// P PENDING, Sg SENDING, St SENT, F FAILED, U UNKNOWN, Sk SKIPPED, '-' refused.
const COLUMNS = [
  E.Claim,
  E.Accept,
  E.RejectPermanent,
  E.ReleaseForRetry,
  E.ExhaustRetries,
  E.ClaimExpired,
  E.OutcomeAmbiguous,
  E.ResendUnknown,
  E.RetryFailed,
  E.Skip,
];
const TABLE: Record<S, string> = {
  //                    claim accept reject release exhaust expired ambiguous resend retry skip
  [S.Pending]: /*    */ 'Sg    -      -      -       F       -       -         -      -     Sk',
  [S.Sending]: /*    */ '-     St     F      P       F       U       U         -      -     -',
  [S.Sent]: /*       */ '-     -      -      -       -       -       -         -      -     -',
  [S.Delivered]: /*  */ '-     -      -      -       -       -       -         -      -     -',
  [S.Read]: /*       */ '-     -      -      -       -       -       -         -      -     -',
  [S.Failed]: /*     */ '-     -      -      -       -       -       -         -      P     -',
  [S.Unknown]: /*    */ '-     -      -      -       -       -       -         P      -     -',
  [S.Skipped]: /*    */ '-     -      -      -       -       -       -         -      -     -',
};
const CODES: Record<string, S> = {
  P: S.Pending,
  Sg: S.Sending,
  St: S.Sent,
  F: S.Failed,
  U: S.Unknown,
  Sk: S.Skipped,
};

const everyPair = Object.values(S).flatMap((from) =>
  COLUMNS.map((event, i) => [from, event, TABLE[from].split(/\s+/)[i]] as const),
);

describe('transitionMessage', () => {
  it.each(everyPair)('%s + %s -> %s', (from, event, code) => {
    const result = transitionMessage(from, event);
    if (code === '-') {
      expect(result).toEqual({
        ok: false,
        code: 'MESSAGE_TRANSITION_REFUSED',
        reason: `a ${from} message cannot ${event}`,
      });
    } else {
      expect(result).toEqual({ ok: true, next: CODES[code ?? ''] });
    }
  });

  it('enumerates all 8 x 10 pairs, every status and event exactly once', () => {
    expect(Object.keys(TABLE).sort()).toEqual(Object.values(S).sort());
    expect([...COLUMNS].sort()).toEqual(Object.values(E).sort());
    for (const row of Object.values(TABLE)) {
      const cells = row.split(/\s+/);
      expect(cells).toHaveLength(COLUMNS.length);
      expect(cells.every((c) => c === '-' || CODES[c] !== undefined)).toBe(true);
    }
    expect(everyPair).toHaveLength(80);
  });

  it('never resends automatically: UNKNOWN is left only by an explicit resend', () => {
    for (const event of Object.values(E)) {
      expect(transitionMessage(S.Unknown, event).ok).toBe(event === E.ResendUnknown);
    }
  });

  it('reaches SENDING only by a claim', () => {
    for (const [from, event] of everyPair) {
      const result = transitionMessage(from, event);
      if (result.ok && result.next === S.Sending) expect([from, event]).toEqual([S.Pending, E.Claim]);
    }
  });

  it('leaves provider-reported statuses (SENT, DELIVERED, READ) and SKIPPED alone', () => {
    for (const from of [S.Sent, S.Delivered, S.Read, S.Skipped]) {
      for (const event of Object.values(E)) expect(transitionMessage(from, event).ok).toBe(false);
    }
  });
});

describe('sourceStatesOf', () => {
  // Written out by hand, in MessageStatus order.
  const EXPECTED: Record<E, S[]> = {
    [E.Claim]: [S.Pending],
    [E.Accept]: [S.Sending],
    [E.RejectPermanent]: [S.Sending],
    [E.ReleaseForRetry]: [S.Sending],
    [E.ExhaustRetries]: [S.Pending, S.Sending],
    [E.ClaimExpired]: [S.Sending],
    [E.OutcomeAmbiguous]: [S.Sending],
    [E.ResendUnknown]: [S.Unknown],
    [E.RetryFailed]: [S.Failed],
    [E.Skip]: [S.Pending],
  };

  it.each(Object.values(E))('%s', (event) => {
    expect(sourceStatesOf(event)).toEqual(EXPECTED[event]);
  });

  it('agrees with transitionMessage on every pair', () => {
    for (const [from, event] of everyPair) {
      expect(sourceStatesOf(event).includes(from)).toBe(transitionMessage(from, event).ok);
    }
  });

  it('returns a fresh array each time', () => {
    const first = sourceStatesOf(E.ExhaustRetries);
    first.push(S.Read);
    expect(sourceStatesOf(E.ExhaustRetries)).toEqual([S.Pending, S.Sending]);
  });
});
