import { Injectable } from '@nestjs/common';
import { selectRows } from '@ums/platform';
import { DataSource } from 'typeorm';

/** A report that named no message in `messages`: by our id, or by the provider's id only. */
export interface UnmatchedReport {
  readonly index: number;
  readonly messageId: string | undefined;
  readonly providerMessageId: string | null;
  readonly credentialId: string;
}

interface ArchivedRow {
  readonly id: string;
  readonly credential_id: string;
  readonly provider_message_id: string | null;
}

/**
 * Tells which reports that matched no hot message name an archived one (`messages_archive`, moved there
 * by the campaign-scheduler past MESSAGE_RETENTION_MS): a late delivery report of a message that
 * changes no more. Read only for the few reports that matched nothing: primary-key reads by our ids,
 * index reads of `message_provider_ids_archive` by provider ids.
 */
@Injectable()
export class ArchivedMessagesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Indexes of the reports that name an archived message of their own credential. */
  async archivedOf(reports: readonly UnmatchedReport[]): Promise<Set<number>> {
    if (reports.length === 0) return new Set();
    const ids = [
      ...new Set(reports.flatMap((r) => (r.messageId === undefined ? [] : [BigInt(r.messageId)]))),
    ];
    const providerIds = [
      ...new Set(
        reports.flatMap((r) =>
          r.messageId === undefined && r.providerMessageId !== null ? [r.providerMessageId] : [],
        ),
      ),
    ];
    const rows: ArchivedRow[] = [];
    if (ids.length > 0) {
      rows.push(
        ...(await selectRows<ArchivedRow>(
          this.dataSource,
          `SELECT m.id, m.credential_id, NULL AS provider_message_id FROM messages_archive m WHERE m.id IN (?)`,
          [ids],
        )),
      );
    }
    if (providerIds.length > 0) {
      rows.push(
        ...(await selectRows<ArchivedRow>(
          this.dataSource,
          `SELECT m.id, m.credential_id, p.provider_message_id
             FROM message_provider_ids_archive p JOIN messages_archive m ON m.id = p.message_id
            WHERE p.provider_message_id IN (?)`,
          [providerIds],
        )),
      );
    }
    const byId = new Set(rows.map((row) => `${row.credential_id}\n${row.id}`));
    const byProviderId = new Set(
      rows.flatMap((row) =>
        row.provider_message_id === null ? [] : [`${row.credential_id}\n${row.provider_message_id}`],
      ),
    );
    return new Set(
      reports
        .filter((r) =>
          r.messageId !== undefined
            ? byId.has(`${r.credentialId}\n${r.messageId}`)
            : byProviderId.has(`${r.credentialId}\n${r.providerMessageId ?? ''}`),
        )
        .map((r) => r.index),
    );
  }
}
