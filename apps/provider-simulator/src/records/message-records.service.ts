import { Injectable } from '@nestjs/common';
import type { SimulatedStatus } from '@ums/domain';
import { CredentialsService } from '../credentials/credentials.service';
import { RecordsConfig } from './records.config';

/** One accepted send as the simulator keeps it, for status lookups. */
export interface MessageRecord {
  readonly credentialId: string;
  /** Our message id, when the request carried one. */
  readonly messageId: string | undefined;
  readonly providerMessageId: string;
  readonly to: string;
  readonly from: string | undefined;
  /** The text, where the provider's status API shows it (Twilio). */
  readonly body: string | undefined;
  /** Simulator clock (ms) of the acceptance. */
  readonly createdAt: number;
  /** The furthest status reached: `sent` at acceptance, then what its callbacks said. */
  status: SimulatedStatus;
  updatedAt: number;
}

/** What a lookup by our message id finds: the send, none (nothing was accepted) or not tracked. */
export type RecordLookup =
  | { readonly kind: 'found'; readonly record: MessageRecord }
  | { readonly kind: 'none' }
  | { readonly kind: 'untracked' };

const RANK: Readonly<Record<SimulatedStatus, number>> = { sent: 1, delivered: 2, read: 3, failed: 0 };

class CredentialRecords {
  readonly byMessageId = new Map<string, MessageRecord>();
  readonly byProviderId = new Map<string, MessageRecord>();
  readonly byTo = new Map<string, MessageRecord[]>();
  /** Accepted sends not kept (over the budget): a miss no longer proves the send never came. */
  untracked = 0;
}

/**
 * The sends the simulator accepted, per credential, as a provider's status API knows them: by our
 * message id (native lookups), by provider id (Twilio's Message resource) and by recipient (Twilio's
 * list resource). A status moves forward as its callbacks are due (SENT < DELIVERED < READ; FAILED
 * only before a delivery). In memory, at most SIMULATOR_MAX_RECORDED_MESSAGES sends; past that a
 * credential's misses answer `untracked`, never `none`. POST /_sim/reset forgets them.
 */
@Injectable()
export class MessageRecords {
  private readonly byCredential = new Map<string, CredentialRecords>();
  private size = 0;

  constructor(
    private readonly config: RecordsConfig,
    credentials: CredentialsService,
  ) {
    credentials.onRemoved((id) => this.reset(id));
  }

  /**
   * Keeps an accepted send (the first acceptance of a message id wins: a duplicate is a second send);
   * `byRecipient` also indexes it by recipient (only Twilio's list resource reads that).
   */
  accept(record: Omit<MessageRecord, 'status' | 'updatedAt'>, byRecipient: boolean): void {
    const records = this.of(record.credentialId);
    if (this.size >= this.config.SIMULATOR_MAX_RECORDED_MESSAGES) {
      records.untracked++;
      return;
    }
    const kept: MessageRecord = { ...record, status: 'sent', updatedAt: record.createdAt };
    if (record.messageId !== undefined && !records.byMessageId.has(record.messageId)) {
      records.byMessageId.set(record.messageId, kept);
    }
    records.byProviderId.set(record.providerMessageId, kept);
    this.size++;
    if (!byRecipient) return;
    const sameTo = records.byTo.get(record.to);
    if (sameTo === undefined) records.byTo.set(record.to, [kept]);
    else sameTo.push(kept);
  }

  /** A status whose callback is due: moves the send forward (never back). */
  advance(credentialId: string, providerMessageId: string, status: SimulatedStatus, at: number): void {
    const record = this.byCredential.get(credentialId)?.byProviderId.get(providerMessageId);
    if (record === undefined || !movesForward(record.status, status)) return;
    record.status = status;
    record.updatedAt = at;
  }

  byMessageId(credentialId: string, messageId: string): RecordLookup {
    const records = this.byCredential.get(credentialId);
    const record = records?.byMessageId.get(messageId);
    if (record !== undefined) return { kind: 'found', record };
    return (records?.untracked ?? 0) > 0 ? { kind: 'untracked' } : { kind: 'none' };
  }

  /** A send of any of `credentialIds` by its provider id. */
  byProviderId(credentialIds: readonly string[], providerMessageId: string): MessageRecord | undefined {
    for (const id of credentialIds) {
      const record = this.byCredential.get(id)?.byProviderId.get(providerMessageId);
      if (record !== undefined) return record;
    }
    return undefined;
  }

  /** The sends of `credentialIds` to `to`, oldest first. */
  byRecipient(credentialIds: readonly string[], to: string): MessageRecord[] {
    const found = credentialIds.flatMap((id) => this.byCredential.get(id)?.byTo.get(to) ?? []);
    return found.sort((a, b) => a.createdAt - b.createdAt);
  }

  reset(credentialId: string | undefined): void {
    const ids = credentialId === undefined ? [...this.byCredential.keys()] : [credentialId];
    for (const id of ids) {
      this.size -= this.byCredential.get(id)?.byProviderId.size ?? 0;
      this.byCredential.delete(id);
    }
  }

  private of(credentialId: string): CredentialRecords {
    let records = this.byCredential.get(credentialId);
    if (records === undefined) {
      records = new CredentialRecords();
      this.byCredential.set(credentialId, records);
    }
    return records;
  }
}

function movesForward(current: SimulatedStatus, next: SimulatedStatus): boolean {
  if (current === 'failed' || current === next) return false;
  if (next === 'failed') return RANK[current] < RANK.delivered;
  return RANK[next] > RANK[current];
}
