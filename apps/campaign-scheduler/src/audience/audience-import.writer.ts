import type { RecipientVariables } from '@ums/domain';
import type { ImportCounters, ImportRows, NewContact, NewReject } from './import-rows.sql';

/** A contact waiting to land, with its input kept to describe it if it turns out to be a duplicate. */
interface PendingContact<S> extends NewContact {
  readonly source: S;
}

/**
 * Where a writer lands its rows: a campaign's audience (AudienceRepository) or a contact list
 * (keyed by the list's id instead of the campaign's).
 */
export type ImportSink = Pick<
  ImportRows<string>,
  'insertContacts' | 'existingContacts' | 'insertRejects' | 'updateProgress'
>;

interface Chunk<S> {
  readonly contacts: PendingContact<S>[];
  readonly rejects: NewReject[];
  /** How many of the rejects are duplicates caught in memory. */
  readonly duplicates: number;
}

// A chunk is also cut by size, so wide rows (50 variables of 1 KiB) never make one statement larger than
// MySQL's max_allowed_packet (16 MiB by default on MariaDB) or hold much memory.
const MAX_CHUNK_CHARS = 4 * 1024 * 1024;

/**
 * Collects one import's accepted and rejected rows and lands them a chunk at a time: one multi-row
 * INSERT IGNORE for the contacts, a lookup of the skipped addresses only when some were skipped,
 * one INSERT for the rejects, one progress UPDATE. One chunk may be landing while the caller
 * collects the next (parsing and the database overlap), never more, so memory stays flat.
 *
 * Duplicates: within a chunk they are caught in memory; against stored contacts the INSERT IGNORE's
 * affected-row count says how many were new, and if some were not, the stored rows for the chunk's
 * addresses (by the unique key) tell by their import_id and line_no whether the holder is an earlier
 * line of this import or an earlier import.
 */
export class AudienceImportWriter<S> {
  private contacts: PendingContact<S>[] = [];
  private rejects: NewReject[] = [];
  private duplicates = 0;
  // Lower-cased address -> line, for the current chunk (the column collation ignores case too).
  private lines = new Map<string, number>();
  private chars = 0;
  private landing: Promise<void> | undefined;
  private totals = { read: 0, accepted: 0, rejected: 0, duplicate: 0 };

  constructor(
    private readonly repository: ImportSink,
    /** The campaign (or contact list) the rows land in. */
    readonly campaignId: string,
    readonly importId: string,
    private readonly chunkRows: number,
    /** The raw text stored with a rejected row (at most 1024 characters are kept). */
    private readonly describe: (source: S) => string,
  ) {}

  /** What has landed so far (rows still in memory are not counted). */
  get counters(): ImportCounters {
    return { ...this.totals };
  }

  /** True when the caller should `await flush()` before adding more rows. */
  get full(): boolean {
    return this.contacts.length + this.rejects.length >= this.chunkRows || this.chars >= MAX_CHUNK_CHARS;
  }

  accept(line: number, address: string, variables: RecipientVariables | null, source: S): void {
    const key = address.toLowerCase();
    const earlier = this.lines.get(key);
    if (earlier !== undefined) {
      this.duplicates++;
      this.reject(line, `duplicate of line ${earlier}`, source);
      return;
    }
    this.lines.set(key, line);
    const json = variables === null ? null : JSON.stringify(variables);
    this.contacts.push({ address, variables: json, line, source });
    this.chars += address.length + (json?.length ?? 0) + 32;
  }

  reject(line: number, reason: string, source: S): void {
    const raw = this.describe(source);
    this.rejects.push({ line, reason, raw });
    this.chars += reason.length + raw.length + 32;
  }

  /**
   * Starts landing the rows collected so far, after the previous chunk has landed (so duplicates
   * across chunks are seen in order); returns once that previous chunk is done.
   */
  async flush(): Promise<void> {
    if (this.landing !== undefined) {
      const previous = this.landing;
      this.landing = undefined;
      await previous;
    }
    if (this.contacts.length === 0 && this.rejects.length === 0) return;
    const chunk: Chunk<S> = { contacts: this.contacts, rejects: this.rejects, duplicates: this.duplicates };
    this.contacts = [];
    this.rejects = [];
    this.duplicates = 0;
    this.lines = new Map();
    this.chars = 0;
    const landing = this.land(chunk);
    // Observed here so a failure while the caller is still collecting is not an unhandled rejection;
    // the same promise rejects again for whoever awaits it next.
    landing.catch(() => undefined);
    this.landing = landing;
  }

  /** Lands everything collected and waits for it. */
  async drain(): Promise<void> {
    await this.flush();
    await this.flush();
  }

  private async land(chunk: Chunk<S>): Promise<void> {
    const { contacts, rejects } = chunk;
    const rows = contacts.length + rejects.length;
    const invalid = rejects.length - chunk.duplicates;
    const inserted = await this.repository.insertContacts(this.campaignId, this.importId, contacts);
    const skipped = inserted < contacts.length ? await this.skipped(contacts) : [];
    await this.repository.insertRejects(
      this.importId,
      skipped.length === 0 ? rejects : [...rejects, ...skipped],
    );
    this.totals = {
      read: this.totals.read + rows,
      accepted: this.totals.accepted + inserted,
      rejected: this.totals.rejected + invalid,
      duplicate: this.totals.duplicate + rows - invalid - inserted,
    };
    await this.repository.updateProgress(this.importId, this.totals);
  }

  /** The contacts INSERT IGNORE skipped, each with the line or import that holds its address. */
  private async skipped(contacts: readonly PendingContact<S>[]): Promise<NewReject[]> {
    const existing = await this.repository.existingContacts(
      this.campaignId,
      contacts.map((contact) => contact.address),
    );
    const byKey = new Map(existing.map((row) => [row.address.toLowerCase(), row]));
    const skipped: NewReject[] = [];
    for (const contact of contacts) {
      const holder = byKey.get(contact.address.toLowerCase());
      const ours = holder !== undefined && holder.importId === this.importId;
      if (ours && holder.line === contact.line) continue; // inserted just now
      skipped.push({
        line: contact.line,
        reason: ours && holder.line !== null ? `duplicate of line ${holder.line}` : 'already in the audience',
        raw: this.describe(contact.source),
      });
    }
    return skipped;
  }
}
