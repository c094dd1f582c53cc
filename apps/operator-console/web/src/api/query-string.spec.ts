import { queryString } from './query-string';

describe('queryString', () => {
  it('repeats array values and leaves out empty ones', () => {
    expect(
      queryString({ state: ['FAILED', 'UNKNOWN'], recipient: '', after: undefined, limit: 50, flag: false }),
    ).toBe('?state=FAILED&state=UNKNOWN&limit=50&flag=false');
  });

  it('encodes values', () => {
    expect(queryString({ recipient: '+49 151/1' })).toBe('?recipient=%2B49+151%2F1');
  });

  it('is empty without values', () => {
    expect(queryString(undefined)).toBe('');
    expect(queryString({ state: [], before: null })).toBe('');
  });
});
