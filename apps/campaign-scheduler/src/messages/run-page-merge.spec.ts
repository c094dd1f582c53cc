import { mergeById } from './run-page-merge';

const rows = (...ids: string[]) => ids.map((id) => ({ id, from: 'x' }));

describe('mergeById (a run page read from messages, then messages_archive)', () => {
  it('answers the hot rows alone when nothing is archived', () => {
    expect(mergeById(rows('5', '7'), [], 1).map((r) => r.id)).toEqual(['5']);
  });

  it('interleaves both reads in id order (numerically, past 2^53) and cuts at the limit', () => {
    const hot = rows('9007199254740993', '12');
    const archived = rows('3', '9007199254740992', '20');
    expect(mergeById(hot, archived, 4).map((r) => r.id)).toEqual(['3', '12', '20', '9007199254740992']);
  });

  it('keeps one copy of a row read in both tables (moved between the two reads), the hot one', () => {
    const hot = [{ id: '4', from: 'hot' }];
    const archived = [
      { id: '4', from: 'archive' },
      { id: '6', from: 'archive' },
    ];
    expect(mergeById(hot, archived, 10)).toEqual([
      { id: '4', from: 'hot' },
      { id: '6', from: 'archive' },
    ]);
  });
});
