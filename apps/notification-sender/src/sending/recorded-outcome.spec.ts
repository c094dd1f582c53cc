import { Channel, FailureReason, MessageStatus } from '@ums/contracts';
import { planRecord, type RecordableRow, type RecordedOutcome, transitionOf } from './recorded-outcome';

function row(id: string, state: MessageStatus, runId: string | null = '7'): RecordableRow {
  return {
    id,
    run_id: runId,
    campaign_id: 'camp',
    tenant_id: 't',
    channel: Channel.Sms,
    recipient: `+1555000${id}`,
    state,
  };
}

const failure = { reason: FailureReason.ProviderError, code: 'HTTP_503', text: 'unavailable' };

describe('transitionOf', () => {
  it('moves a SENDING row by the state machine, exhausted failures included', () => {
    const next = (outcome: RecordedOutcome): unknown => transitionOf(MessageStatus.Sending, outcome);
    expect(next({ id: '1', kind: 'sent', providerMessageId: 'p' })).toEqual({
      ok: true,
      next: MessageStatus.Sent,
    });
    expect(next({ id: '1', kind: 'failed', ...failure })).toEqual({ ok: true, next: MessageStatus.Failed });
    expect(next({ id: '1', kind: 'failed', exhausted: true, ...failure })).toEqual({
      ok: true,
      next: MessageStatus.Failed,
    });
    expect(next({ id: '1', kind: 'unknown', ...failure })).toEqual({ ok: true, next: MessageStatus.Unknown });
    expect(next({ id: '1', kind: 'released', ...failure })).toEqual({
      ok: true,
      next: MessageStatus.Pending,
    });
  });

  it('lets only SENT settle an UNKNOWN row (its claim expired while the request was out)', () => {
    expect(transitionOf(MessageStatus.Unknown, { id: '1', kind: 'sent', providerMessageId: null })).toEqual({
      ok: true,
      next: MessageStatus.Sent,
    });
    expect(transitionOf(MessageStatus.Unknown, { id: '1', kind: 'released', ...failure })).toEqual({
      ok: false,
    });
    expect(transitionOf(MessageStatus.Unknown, { id: '1', kind: 'failed', ...failure })).toEqual({
      ok: false,
    });
  });
});

describe('planRecord', () => {
  it('groups the writes by state and announces each change with its details', () => {
    const plan = planRecord(
      [
        row('1', MessageStatus.Sending),
        row('2', MessageStatus.Sending),
        row('3', MessageStatus.Sending, null),
      ],
      [
        { id: '1', kind: 'sent', providerMessageId: 'p-1' },
        { id: '2', kind: 'released', notSent: true, ...failure },
        {
          id: '3',
          kind: 'failed',
          reason: FailureReason.Rejected,
          code: 'X'.repeat(70),
          text: 'y'.repeat(1100),
        },
      ],
    );
    expect(plan.sent).toEqual([{ id: '1', kind: 'sent', providerMessageId: 'p-1' }]);
    expect([...plan.failures.keys()]).toEqual([MessageStatus.Pending, MessageStatus.Failed]);
    expect(plan.failures.get(MessageStatus.Pending)?.map((o) => o.id)).toEqual(['2']);
    expect(plan.changes).toEqual([
      {
        messageId: '1',
        runId: '7',
        campaignId: 'camp',
        tenantId: 't',
        channel: Channel.Sms,
        recipient: '+15550001',
        previous: MessageStatus.Sending,
        status: MessageStatus.Sent,
        providerMessageId: 'p-1',
      },
      expect.objectContaining({
        messageId: '2',
        status: MessageStatus.Pending,
        reason: FailureReason.ProviderError,
        errorCode: 'HTTP_503',
        errorText: 'unavailable',
      }),
      expect.objectContaining({ messageId: '3', runId: null, status: MessageStatus.Failed }),
    ]);
    expect(plan.changes[2]?.errorCode).toHaveLength(64);
    expect(plan.changes[2]?.errorText).toHaveLength(1024);
  });

  it('records nothing for rows not locked or refused, and an id given twice once', () => {
    const plan = planRecord(
      [row('1', MessageStatus.Sending), row('2', MessageStatus.Unknown)],
      [
        { id: '1', kind: 'sent', providerMessageId: null },
        { id: '1', kind: 'failed', ...failure },
        { id: '2', kind: 'released', ...failure },
        { id: '9', kind: 'sent', providerMessageId: 'p-9' },
      ],
    );
    expect(plan.sent.map((o) => o.id)).toEqual(['1']);
    expect(plan.failures.size).toBe(0);
    expect(plan.changes).toHaveLength(1);
    expect(plan.changes[0]).not.toHaveProperty('providerMessageId');
  });
});
