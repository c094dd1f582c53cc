import type {
  AudienceRepository,
  ExistingContact,
  ImportCounters,
  NewContact,
  NewReject,
} from './audience.repository';
import { AudienceImportWriter } from './audience-import.writer';

/** contacts and audience_rejects in memory, with INSERT IGNORE on a case-insensitive (campaign, address) key. */
class FakeRepository {
  readonly contacts = new Map<string, ExistingContact & { campaignId: string }>();
  readonly rejects: (NewReject & { importId: string })[] = [];
  readonly progress: ImportCounters[] = [];
  statements = 0;
  failNextInsert = false;

  async insertContacts(
    campaignId: string,
    importId: string,
    contacts: readonly NewContact[],
  ): Promise<number> {
    this.statements++;
    await Promise.resolve();
    if (this.failNextInsert) {
      this.failNextInsert = false;
      throw new Error('connection lost');
    }
    let inserted = 0;
    for (const contact of contacts) {
      const key = `${campaignId}/${contact.address.toLowerCase()}`;
      if (this.contacts.has(key)) continue;
      this.contacts.set(key, { campaignId, address: contact.address, importId, line: contact.line });
      inserted++;
    }
    return inserted;
  }

  async existingContacts(campaignId: string, addresses: readonly string[]): Promise<ExistingContact[]> {
    this.statements++;
    await Promise.resolve();
    return addresses.flatMap((address) => {
      const row = this.contacts.get(`${campaignId}/${address.toLowerCase()}`);
      return row === undefined ? [] : [{ address: row.address, importId: row.importId, line: row.line }];
    });
  }

  async insertRejects(importId: string, rejects: readonly NewReject[]): Promise<void> {
    this.statements++;
    await Promise.resolve();
    this.rejects.push(...rejects.map((reject) => ({ ...reject, importId })));
  }

  async updateProgress(_importId: string, counters: ImportCounters): Promise<void> {
    this.statements++;
    await Promise.resolve();
    this.progress.push(counters);
  }
}

function writerFor(
  repository: FakeRepository,
  importId: string,
  chunkRows: number,
): AudienceImportWriter<string> {
  return new AudienceImportWriter<string>(
    repository as unknown as AudienceRepository,
    'camp-1',
    importId,
    chunkRows,
    (source) => `raw:${source}`,
  );
}

async function feed(
  writer: AudienceImportWriter<string>,
  rows: readonly [number, string | { reject: string }][],
): Promise<void> {
  for (const [line, row] of rows) {
    if (typeof row === 'string') writer.accept(line, row, { n: String(line) }, row);
    else writer.reject(line, row.reject, `line ${line}`);
    if (writer.full) await writer.flush();
  }
  await writer.drain();
}

describe('AudienceImportWriter', () => {
  it('lands rows in chunks and counts accepted, rejected and duplicate rows as they land', async () => {
    const repository = new FakeRepository();
    const writer = writerFor(repository, '1', 3);
    await feed(writer, [
      [2, '+1'],
      [3, { reject: 'phone number is empty' }],
      [4, '+2'],
      [5, '+1'], // next chunk: found through the stored rows
      [6, '+3'],
      [7, '+3'], // same chunk: found in memory
      [8, '+4'],
    ]);
    expect(writer.counters).toEqual({ read: 7, accepted: 4, rejected: 1, duplicate: 2 });
    expect(repository.progress).toEqual([
      { read: 3, accepted: 2, rejected: 1, duplicate: 0 },
      { read: 6, accepted: 3, rejected: 1, duplicate: 2 },
      { read: 7, accepted: 4, rejected: 1, duplicate: 2 },
    ]);
    expect(repository.rejects.map(({ line, reason, raw }) => [line, reason, raw])).toEqual([
      [3, 'phone number is empty', 'raw:line 3'],
      [7, 'duplicate of line 6', 'raw:+3'],
      [5, 'duplicate of line 2', 'raw:+1'],
    ]);
    expect([...repository.contacts.values()].map((row) => [row.address, row.line])).toEqual([
      ['+1', 2],
      ['+2', 4],
      ['+3', 6],
      ['+4', 8],
    ]);
  });

  it('tells rows of an earlier import apart, and compares addresses ignoring case', async () => {
    const repository = new FakeRepository();
    await feed(writerFor(repository, '1', 10), [[2, 'Anna@example.com']]);
    const second = writerFor(repository, '2', 10);
    await feed(second, [
      [2, 'anna@example.com'],
      [3, 'bob@example.com'],
      [4, 'BOB@example.com'],
    ]);
    expect(second.counters).toEqual({ read: 3, accepted: 1, rejected: 0, duplicate: 2 });
    expect(repository.rejects.map(({ line, reason, importId }) => [importId, line, reason])).toEqual([
      ['2', 4, 'duplicate of line 3'],
      ['2', 2, 'already in the audience'],
    ]);
  });

  it('looks up stored rows only when the insert skipped some', async () => {
    const repository = new FakeRepository();
    await feed(writerFor(repository, '1', 2), [
      [1, '+1'],
      [2, '+2'],
      [3, '+3'],
      [4, '+4'],
    ]);
    // Per chunk: contacts, rejects, progress; no lookup.
    expect(repository.statements).toBe(6);
  });

  it('fails the flush after a chunk failed to land, without an unhandled rejection', async () => {
    const repository = new FakeRepository();
    const writer = writerFor(repository, '1', 2);
    repository.failNextInsert = true;
    writer.accept(1, '+1', null, '+1');
    writer.accept(2, '+2', null, '+2');
    await writer.flush(); // starts landing; the failure surfaces at the next flush
    await new Promise((resolve) => setImmediate(resolve));
    writer.accept(3, '+3', null, '+3');
    await expect(writer.flush()).rejects.toThrow('connection lost');
    await writer.drain();
    expect(writer.counters).toEqual({ read: 1, accepted: 1, rejected: 0, duplicate: 0 });
  });
});
