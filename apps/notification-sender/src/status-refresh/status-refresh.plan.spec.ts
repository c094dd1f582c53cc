import { FailureReason, MessageStatus, Provider } from '@ums/contracts';
import type { StatusLookup } from '../providers/provider-adapter';
import type { StatusChange } from '../sending/status-change';
import { countSettled, type RefreshCandidate, settlementReports } from './status-refresh.plan';

const NOW = '2026-11-28T12:00:00.000Z';
const row = (
  id: string,
  state: RefreshCandidate['state'],
  providerMessageId: string | null = null,
): RefreshCandidate => ({
  id,
  runId: '7',
  credentialId: 'c1',
  state,
  recipient: `+49151${id}`,
  providerMessageId,
  claimedAt: new Date('2026-11-28T10:00:00Z'),
});
const candidates = new Map(
  [
    row('1', MessageStatus.Unknown),
    row('2', MessageStatus.Unknown),
    row('3', MessageStatus.Unknown),
    row('4', MessageStatus.Sent, 'p-4'),
    row('5', MessageStatus.Sent, 'p-5'),
    row('6', MessageStatus.Unknown),
    row('7', MessageStatus.Sent, 'p-7'),
  ].map((r) => [r.id, r]),
);

describe('settlementReports', () => {
  it('turns lookups into compare-and-set reports; never-received UNKNOWN rows become FAILED NOT_RECEIVED', () => {
    const lookups: StatusLookup[] = [
      {
        messageId: '1',
        kind: 'accepted',
        providerMessageId: 'p-1',
        status: 'delivered',
        at: new Date('2026-11-28T10:00:05Z'),
      },
      { messageId: '2', kind: 'not-received' },
      { messageId: '3', kind: 'unknown', detail: 'timeout' },
      { messageId: '4', kind: 'accepted', providerMessageId: 'p-4', status: 'failed', errorCode: '30003' },
      { messageId: '5', kind: 'not-received' },
      { messageId: '6', kind: 'accepted', providerMessageId: 'p-taken', status: 'sent' },
      { messageId: '7', kind: 'accepted', providerMessageId: 'p-other', status: 'read' },
      { messageId: '99', kind: 'not-received' },
    ];
    const reports = settlementReports(Provider.Twilio, candidates, lookups, new Set(['p-taken']), NOW);
    expect(reports).toEqual([
      {
        index: 0,
        messageId: '1',
        credentialId: 'c1',
        expected: MessageStatus.Unknown,
        providerMessageId: 'p-1',
        status: MessageStatus.Delivered,
        occurredAt: '2026-11-28T10:00:05.000Z',
      },
      {
        index: 1,
        messageId: '2',
        credentialId: 'c1',
        expected: MessageStatus.Unknown,
        providerMessageId: null,
        status: MessageStatus.Failed,
        reason: FailureReason.NotReceived,
        errorText: 'the provider has no record of the message',
        occurredAt: NOW,
      },
      {
        index: 2,
        messageId: '4',
        credentialId: 'c1',
        expected: MessageStatus.Sent,
        providerMessageId: 'p-4',
        status: MessageStatus.Failed,
        reason: FailureReason.Other,
        errorCode: '30003',
        occurredAt: NOW,
      },
    ]);
  });
});

describe('countSettled', () => {
  it('counts applied changes by where they went and the rest as unresolved', () => {
    const change = (messageId: string, status: MessageStatus, reason?: FailureReason): StatusChange => ({
      messageId,
      runId: '7',
      campaignId: '1',
      tenantId: 't',
      channel: 'sms' as StatusChange['channel'],
      recipient: '+49',
      previous: MessageStatus.Unknown,
      status,
      ...(reason === undefined ? {} : { reason }),
    });
    expect(
      countSettled(
        [
          change('1', MessageStatus.Sent),
          change('2', MessageStatus.Delivered),
          change('3', MessageStatus.Failed, FailureReason.NotReceived),
          change('4', MessageStatus.Failed, FailureReason.Other),
        ],
        7,
      ),
    ).toEqual({ sent: 1, delivered: 1, read: 0, failed: 1, notReceived: 1, unresolved: 3 });
  });
});
