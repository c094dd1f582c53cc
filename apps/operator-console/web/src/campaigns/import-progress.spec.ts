import type { ImportSummary, RejectView } from '../api/api.types';
import { collectRejects, importOutcome, isImportDone } from './import-progress';

const summary = (state: ImportSummary['state']): ImportSummary => ({
  id: '1',
  campaignId: 'c',
  source: 'csv',
  state,
  rowsRead: 3,
  rowsAccepted: 2,
  rowsRejected: 1,
  rowsDuplicate: 0,
  error: null,
  startedAt: null,
  finishedAt: null,
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
  firstRejects: [],
});

const reject = (line: number): RejectView => ({ line, reason: 'phone number is empty', raw: ',x' });

describe('import progress', () => {
  it('is done when completed or failed, and says what was accepted and rejected', () => {
    expect(isImportDone(summary('RUNNING'))).toBe(false);
    expect(isImportDone(summary('COMPLETED'))).toBe(true);
    expect(isImportDone(summary('FAILED'))).toBe(true);
    expect(importOutcome(summary('COMPLETED'))).toBe('Accepted 2, rejected 1');
  });

  it('collects the rejects page after page, up to the maximum', async () => {
    const afters: (number | undefined)[] = [];
    const pages = async (after: number | undefined) => {
      afters.push(after);
      const start = after ?? 1;
      return { items: [reject(start + 1), reject(start + 2)], nextAfter: start + 2 < 7 ? start + 2 : null };
    };
    expect(await collectRejects(pages)).toEqual({
      rows: [2, 3, 4, 5, 6, 7].map(reject),
      more: false,
    });
    expect(afters).toEqual([undefined, 3, 5]);
    const capped = await collectRejects(pages, 3);
    expect(capped.rows.map((row) => row.line)).toEqual([2, 3, 4]);
    expect(capped.more).toBe(true);
  });
});
