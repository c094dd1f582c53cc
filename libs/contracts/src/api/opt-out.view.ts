import type { Channel } from '../enums/channel.enum';

/** One opt-out: sends of the tenant on this channel to this address are skipped. */
export interface OptOutView {
  readonly tenantId: string;
  readonly channel: Channel;
  /** As contacts are stored: E.164 for phones, the e-mail with its domain lower-cased. */
  readonly address: string;
  /** Who recorded it: `api`, `import` (or the file's own source column), `inbound:<provider>` for a STOP reply. */
  readonly source: string;
  readonly createdAt: string;
}

export interface OptOutPage {
  readonly items: OptOutView[];
  /** Pass as `after` for the next page (`<channel>:<address>`); null on the last page. */
  readonly nextAfter: string | null;
}

export interface OptOutRejectedLine {
  /** Physical line of the file (1 = the header). */
  readonly line: number;
  readonly reason: string;
  /** The rejected row re-encoded as CSV, at most 1024 characters. */
  readonly raw: string;
}

/**
 * What a CSV import of opt-outs did. rowsRead counts the data rows (blank lines excluded) =
 * rowsAdded + rowsDuplicate + rowsRejected; a duplicate was already opted out (or repeated in the file).
 */
export interface OptOutImportSummary {
  readonly rowsRead: number;
  readonly rowsAdded: number;
  readonly rowsDuplicate: number;
  readonly rowsRejected: number;
  /** The first rejected rows, in line order. */
  readonly rejects: readonly OptOutRejectedLine[];
  /** Rejected rows past the first ones listed in `rejects`. */
  readonly rejectsOmitted: number;
}
