import type { Channel } from '../enums/channel.enum';
import type { ImportState, RejectedLine, RejectView } from './audience-import.view';

/**
 * A tenant's reusable contact list: members imported once (CSV upload or URL), used as the audience
 * of any number of campaigns on its channel.
 */
export interface ContactListView {
  readonly id: string;
  readonly name: string;
  readonly channel: Channel;
  /** ISO 3166-1 alpha-2 country of phone numbers written without a country code, or null. */
  readonly defaultCountry: string | null;
  /** Members stored (recounted when an import finishes). */
  readonly memberCount: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** GET /v1/contact-lists: newest first; pass `nextBefore` as `before` for the next page. */
export interface ContactListPage {
  readonly items: ContactListView[];
  readonly nextBefore: string | null;
}

/** Where a list import's rows came from. */
export type ContactListImportSource = 'csv' | 'url';

/** One import into a contact list; rowsRead = rowsAccepted + rowsRejected + rowsDuplicate. */
export interface ContactListImportView {
  readonly id: string;
  readonly listId: string;
  readonly source: ContactListImportSource;
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

/** A list import with its first rejected lines; the rejects route pages through all of them. */
export interface ContactListImportSummary extends ContactListImportView {
  readonly firstRejects: readonly RejectedLine[];
}

/** GET /v1/contact-lists/{id}/imports/{importId}/rejects. */
export interface ContactListRejectPage {
  readonly items: RejectView[];
  readonly nextAfter: number | null;
}

/** One member of a list: its address as stored and its variables (also the attributes segments filter on). */
export interface ContactListMemberView {
  readonly id: string;
  readonly address: string;
  readonly variables: Readonly<Record<string, string>> | null;
  /** The line of the imported file it was read from. */
  readonly line: number | null;
}

/** GET /v1/contact-lists/{id}/members: in id order; pass `nextAfter` as `after` for the next page. */
export interface ContactListMemberPage {
  readonly items: ContactListMemberView[];
  readonly nextAfter: string | null;
}
