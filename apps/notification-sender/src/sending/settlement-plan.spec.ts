import { Channel, FailureReason } from '@ums/contracts';
import type { RetryableFailure, SendResult } from '@ums/domain';
import type { ClaimedMessage } from './message-claims.repository';
import { labelOf, planSettlement } from './settlement-plan';

function claimed(id: string, attempts: number): ClaimedMessage {
  return {
    id,
    runId: '7',
    campaignId: 'camp',
    tenantId: 't',
    channel: Channel.Sms,
    credentialId: 'cred',
    recipient: `+1555000${id}`,
    attempts,
    stored: null,
  };
}

function retryable(code: string, extra: Partial<RetryableFailure> = {}): RetryableFailure {
  return {
    kind: 'retryable',
    reason: FailureReason.ProviderError,
    code,
    congestion: false,
    ambiguous: false,
    ...extra,
  };
}

const context = { tierDelaysMs: [1_000, 60_000], nowMs: 10_000, jitterRatio: 0 };

describe('planSettlement', () => {
  it('decides each result: sent, failed, unknown, retried by tier, exhausted', () => {
    const results = new Map<string, SendResult>([
      ['1', { kind: 'accepted', providerMessageId: 'p-1' }],
      ['2', { kind: 'permanent', reason: FailureReason.InvalidRecipient, code: 'BAD_NUMBER' }],
      ['3', retryable('TIMEOUT', { ambiguous: true })],
      ['4', retryable('HTTP_503', { detail: 'busy' })],
      ['5', retryable('HTTP_503')],
      ['6', retryable('HTTP_500')],
    ]);
    const items = new Map([['4', { messageId: '4', recipient: '+15550004', variables: { name: 'x' } }]]);
    const plan = planSettlement(
      [claimed('1', 1), claimed('2', 1), claimed('3', 1), claimed('4', 1), claimed('5', 2), claimed('6', 3)],
      results,
      items,
      context,
    );
    expect(plan.outcomes.map((o) => [o.id, labelOf(o)])).toEqual([
      ['1', 'sent'],
      ['2', 'failed'],
      ['3', 'unknown'],
      ['4', 'retried'],
      ['5', 'retried'],
      ['6', 'exhausted'],
    ]);
    expect(plan.outcomes[5]).toMatchObject({
      kind: 'failed',
      reason: FailureReason.RetriesExhausted,
      code: 'HTTP_500',
    });
    expect([...plan.retries]).toEqual([
      [0, { items: [items.get('4')], dueAt: 11_000, lastError: 'HTTP_503: busy' }],
      [1, { items: [{ messageId: '5', recipient: '+15550005' }], dueAt: 70_000, lastError: 'HTTP_503' }],
    ]);
    expect(plan.exhausted).toEqual([
      { item: { messageId: '6', recipient: '+15550006' }, attempts: 3, error: 'HTTP_500' },
    ]);
  });

  it('sends one record per tier, due when its last item is, and gives back attempts never sent', () => {
    const results = new Map<string, SendResult>([
      ['1', retryable('HTTP_503')],
      ['2', retryable('HTTP_429', { retryAfterMs: 800 })],
      ['3', retryable('SLOT_MISSED')],
    ]);
    const plan = planSettlement(
      [claimed('1', 1), claimed('2', 1), claimed('3', 2)],
      results,
      new Map(),
      context,
    );
    expect(plan.retries.get(0)).toMatchObject({ dueAt: 11_000, lastError: 'HTTP_503' });
    expect(plan.retries.get(0)?.items.map((i) => i.messageId)).toEqual(['1', '2', '3']);
    expect(plan.outcomes.map((o) => (o.kind === 'released' ? o.notSent : undefined))).toEqual([
      false,
      false,
      true,
    ]);
  });

  it('refuses a claimed message without a result', () => {
    expect(() => planSettlement([claimed('1', 1)], new Map(), new Map(), context)).toThrow(
      'no send result for message 1',
    );
  });
});
