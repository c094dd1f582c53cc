/** Where an import's rows came from (the audience_imports.source CHECK values; `list`: a contact list). */
export type ImportSource = 'csv' | 'url' | 'inline' | 'request' | 'list';

export type ImportState = 'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED';

export interface RejectedLine {
  /**
   * Physical line of the file (1 = header), the 1-based position in an inline list, or for a contact
   * list the line its member was read from.
   */
  readonly line: number;
  readonly reason: string;
}

/**
 * One audience import and its progress: counters grow as chunks land. rowsRead counts the data rows
 * read so far (blank lines excluded) = rowsAccepted + rowsRejected + rowsDuplicate.
 */
export interface AudienceImportView {
  readonly id: string;
  readonly campaignId: string;
  readonly source: ImportSource;
  readonly state: ImportState;
  readonly rowsRead: number;
  readonly rowsAccepted: number;
  readonly rowsRejected: number;
  readonly rowsDuplicate: number;
  readonly error: string | null;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** An import with its first rejected lines (by line number); the rejects endpoint pages through all. */
export interface ImportSummary extends AudienceImportView {
  readonly firstRejects: readonly RejectedLine[];
}

export interface RejectView extends RejectedLine {
  /** The rejected input as read (re-encoded as CSV, or the inline recipient as JSON), at most 1024 chars. */
  readonly raw: string | null;
}
