import { Channel, FailureReason } from '@ums/contracts';
import { ConcurrencyLimit } from './concurrency-limit';
import type { OutgoingMessage, SendOutcome } from './provider-adapter';
import { sendInRequests } from './provider-exchange';
import { message } from './test/provider-fixtures';

const messages = Array.from({ length: 7 }, (_, i) =>
  message(String(i + 1), Channel.Sms, `+49${i}`, { text: 'x' }),
);
const accepted = (m: OutgoingMessage): SendOutcome => ({
  messageId: m.messageId,
  kind: 'accepted',
  providerMessageId: `p${m.messageId}`,
});

describe('sendInRequests', () => {
  it('splits into requests of the given size and returns outcomes in input order', async () => {
    const sizes: number[] = [];
    const outcomes = await sendInRequests(messages, 3, new ConcurrencyLimit(4), undefined, async (chunk) => {
      sizes.push(chunk.length);
      // Later chunks finish first.
      await new Promise((r) => setTimeout(r, 10 * (3 - sizes.length)));
      return chunk.map(accepted);
    });
    expect(sizes).toEqual([3, 3, 1]);
    expect(outcomes.map((o) => o.messageId)).toEqual(['1', '2', '3', '4', '5', '6', '7']);
    // Requests of several messages are numbered, so AIMD hears one signal from each; a lone message is one.
    expect(outcomes.map((o) => o.request)).toEqual([0, 0, 0, 1, 1, 1, undefined]);
  });

  it('stops starting requests after congestion; the rest are NOT_ATTEMPTED, never sent, without a second congestion signal', async () => {
    const sent: string[] = [];
    const outcomes = await sendInRequests(messages, 1, new ConcurrencyLimit(1), undefined, async ([m]) => {
      if (m === undefined) return [];
      sent.push(m.messageId);
      if (m.messageId !== '3') return [accepted(m)];
      return [
        {
          messageId: m.messageId,
          kind: 'retryable',
          reason: FailureReason.Throttled,
          code: '130429',
          retryAfterMs: 4000,
          congestion: true,
          ambiguous: false,
        },
      ];
    });
    expect(sent).toEqual(['1', '2', '3']);
    expect(outcomes.slice(3)).toEqual(
      ['4', '5', '6', '7'].map((messageId) => ({
        messageId,
        kind: 'retryable',
        reason: FailureReason.Throttled,
        code: 'NOT_ATTEMPTED',
        detail: 'not sent: an earlier request failed (130429)',
        retryAfterMs: 4000,
        congestion: false,
        ambiguous: false,
      })),
    );
  });

  it('stops after a network error too, but not after a plain provider error', async () => {
    const failWith =
      (reason: FailureReason, congestion: boolean) =>
      async ([m]: readonly OutgoingMessage[]) =>
        m === undefined
          ? []
          : [
              {
                messageId: m.messageId,
                kind: 'retryable' as const,
                reason,
                code: 'X',
                congestion,
                ambiguous: false,
              },
            ];
    const network = await sendInRequests(
      messages,
      1,
      new ConcurrencyLimit(1),
      undefined,
      failWith(FailureReason.NetworkError, false),
    );
    expect(network.filter((o) => o.kind !== 'accepted' && o.code === 'NOT_ATTEMPTED')).toHaveLength(6);
    const provider = await sendInRequests(
      messages,
      1,
      new ConcurrencyLimit(1),
      undefined,
      failWith(FailureReason.ProviderError, false),
    );
    expect(provider.filter((o) => o.kind !== 'accepted' && o.code === 'NOT_ATTEMPTED')).toHaveLength(0);
  });

  it('starts nothing once the signal aborted', async () => {
    const controller = new AbortController();
    const sent: string[] = [];
    const outcomes = await sendInRequests(
      messages,
      2,
      new ConcurrencyLimit(1),
      { signal: controller.signal },
      async (chunk) => {
        sent.push(...chunk.map((m) => m.messageId));
        controller.abort();
        return chunk.map(accepted);
      },
    );
    expect(sent).toEqual(['1', '2']);
    expect(
      outcomes.slice(2).every((o) => o.kind === 'retryable' && o.code === 'ABORTED' && !o.ambiguous),
    ).toBe(true);
  });

  it('starts no request that got its slot past startBy, and lets the started one finish', async () => {
    const sent: string[] = [];
    let release = (): void => undefined;
    const first = new Promise<void>((resolve) => (release = resolve));
    const control = { startBy: performance.now() + 60_000 };
    const pending = sendInRequests(messages, 2, new ConcurrencyLimit(1), control, async (chunk) => {
      sent.push(...chunk.map((m) => m.messageId));
      await first;
      return chunk.map(accepted);
    });
    // The first request holds the only slot; the window closes while the others wait for it.
    await Promise.resolve();
    control.startBy = performance.now() - 1;
    release();
    const outcomes = await pending;
    expect(sent).toEqual(['1', '2']);
    expect(outcomes.slice(0, 2).every((o) => o.kind === 'accepted')).toBe(true);
    expect(outcomes.slice(2).length).toBeGreaterThan(0);
    expect(
      outcomes
        .slice(2)
        .every((o) => o.kind === 'retryable' && o.code === 'CLAIM_WINDOW_PASSED' && !o.ambiguous),
    ).toBe(true);
  });

  it('waits for each slot, keeps a request to one slot, and starts none long after its slot', async () => {
    const now = performance.now();
    const started: { ids: string[]; at: number }[] = [];
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    // Messages 1-2 share a slot (one request), 3-4 have their own; the only concurrency place is
    // held by the first request until after message 4's slot has passed by more than 40 ms.
    const slots = [now + 20, now + 20, now + 60, now + 80, now + 85];
    const pending = sendInRequests(
      messages.slice(0, 5),
      3,
      new ConcurrencyLimit(1),
      { slots, lateAfterMs: 40 },
      async (chunk) => {
        started.push({ ids: chunk.map((m) => m.messageId), at: performance.now() - now });
        if (chunk[0]?.messageId === '1') await held;
        return chunk.map(accepted);
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    release();
    const outcomes = await pending;
    expect(started[0]?.ids).toEqual(['1', '2']);
    // Node's timers count whole milliseconds, so one may fire up to 1 ms before its slot.
    expect(started[0]?.at).toBeGreaterThanOrEqual(18);
    // Past 40 ms after their slots while they waited for the place: not sent, safe to send again.
    expect(started).toHaveLength(1);
    expect(outcomes.map((o) => (o.kind === 'retryable' ? o.code : o.kind))).toEqual([
      'accepted',
      'accepted',
      'SLOT_MISSED',
      'SLOT_MISSED',
      'SLOT_MISSED',
    ]);
  });

  it('stops only the requests of the slot that met trouble; a later slot is a send of its own', async () => {
    const now = performance.now();
    const slots = [now, now, now + 30, now + 30];
    const outcomes = await sendInRequests(
      messages.slice(0, 4),
      1,
      new ConcurrencyLimit(1),
      { slots, lateAfterMs: 10_000 },
      async ([m]) => {
        const id = (m as OutgoingMessage).messageId;
        if (id === '1' || id === '3') {
          return [
            {
              messageId: id,
              kind: 'retryable',
              reason: FailureReason.Throttled,
              code: 'THROTTLED',
              congestion: true,
              ambiguous: false,
            },
          ];
        }
        return [accepted(m as OutgoingMessage)];
      },
    );
    expect(outcomes.map((o) => (o.kind === 'retryable' ? o.code : o.kind))).toEqual([
      'THROTTLED',
      'NOT_ATTEMPTED',
      'THROTTLED',
      'NOT_ATTEMPTED',
    ]);
  });
});
