import { FailureReason, MessageStatus, type Provider } from '@ums/contracts';
import { callbackFailureReason } from '@ums/domain';
import type { StatusLookup } from '../providers/provider-adapter';
import type { StatusChange } from '../sending/status-change';
import type { ReportedStatus } from '../status/status-updates.repository';

/** A row the refresh asks about, as selected. */
export interface RefreshCandidate {
  readonly id: string;
  readonly runId: string | null;
  readonly credentialId: string;
  readonly state: MessageStatus.Unknown | MessageStatus.Sent;
  readonly recipient: string;
  readonly providerMessageId: string | null;
  readonly claimedAt: Date;
}

/** What one round settled, by the state rows went to, and the rows it left as they were. */
export interface SettledCounts {
  sent: number;
  delivered: number;
  read: number;
  failed: number;
  notReceived: number;
  unresolved: number;
}

export function noneSettled(): SettledCounts {
  return { sent: 0, delivered: 0, read: 0, failed: 0, notReceived: 0, unresolved: 0 };
}

const STATUS: Readonly<Record<Extract<StatusLookup, { kind: 'accepted' }>['status'], MessageStatus>> = {
  sent: MessageStatus.Sent,
  delivered: MessageStatus.Delivered,
  read: MessageStatus.Read,
  failed: MessageStatus.Failed,
};

/**
 * The status reports a provider's lookups make of the rows asked about, each a compare-and-set on
 * the state read (a callback that moved the row meanwhile wins):
 * - accepted: the provider's status, with its id (a row that knows another id, or an id that names
 *   another message of ours, is left alone: that is not the same send);
 * - not-received, for an UNKNOWN row only: FAILED NOT_RECEIVED (an operator's resend-unknown sends it
 *   again; nothing is resent automatically). A SENT row's send was answered with acceptance, so a
 *   provider that does not find it leaves the row as it is;
 * - unknown: no report.
 */
export function settlementReports(
  provider: Provider,
  candidates: ReadonlyMap<string, RefreshCandidate>,
  lookups: readonly StatusLookup[],
  idsOfOthers: ReadonlySet<string>,
  nowIso: string,
): ReportedStatus[] {
  const reports: ReportedStatus[] = [];
  for (const lookup of lookups) {
    const row = candidates.get(lookup.messageId);
    if (row === undefined || lookup.kind === 'unknown') continue;
    const base = {
      index: reports.length,
      messageId: row.id,
      credentialId: row.credentialId,
      expected: row.state,
    };
    if (lookup.kind === 'not-received') {
      if (row.state !== MessageStatus.Unknown) continue;
      reports.push({
        ...base,
        providerMessageId: null,
        status: MessageStatus.Failed,
        reason: FailureReason.NotReceived,
        errorText: 'the provider has no record of the message',
        occurredAt: nowIso,
      });
      continue;
    }
    const providerMessageId = lookup.providerMessageId ?? row.providerMessageId;
    if (
      providerMessageId !== null &&
      row.providerMessageId !== null &&
      providerMessageId !== row.providerMessageId
    )
      continue;
    if (providerMessageId !== null && row.providerMessageId === null && idsOfOthers.has(providerMessageId))
      continue;
    const status = STATUS[lookup.status];
    const failed = status === MessageStatus.Failed;
    reports.push({
      ...base,
      providerMessageId,
      status,
      ...(failed
        ? {
            reason: callbackFailureReason(provider, lookup.errorCode),
            errorCode: lookup.errorCode?.slice(0, 64),
          }
        : {}),
      occurredAt: lookup.at?.toISOString() ?? nowIso,
    });
  }
  return reports;
}

/** The applied changes counted by where they took the rows; `looked` rows asked about in all. */
export function countSettled(applied: readonly StatusChange[], looked: number): SettledCounts {
  const counts = noneSettled();
  const settledRows = new Set<string>();
  for (const change of applied) {
    settledRows.add(change.messageId);
    if (change.status === MessageStatus.Sent) counts.sent++;
    else if (change.status === MessageStatus.Delivered) counts.delivered++;
    else if (change.status === MessageStatus.Read) counts.read++;
    else if (change.reason === FailureReason.NotReceived) counts.notReceived++;
    else if (change.status === MessageStatus.Failed) counts.failed++;
  }
  counts.unresolved = Math.max(looked - settledRows.size, 0);
  return counts;
}

export function addCounts(into: SettledCounts, more: SettledCounts): void {
  for (const key of Object.keys(into) as (keyof SettledCounts)[]) into[key] += more[key];
}
