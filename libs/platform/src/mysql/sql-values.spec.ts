import { sqlDateTime } from './sql-values';

const roundTrip = (iso: string): string => new Date(iso).toISOString().slice(0, 23).replace('T', ' ');

describe('sqlDateTime', () => {
  it('cuts the canonical UTC form to the same literal as a Date round trip', () => {
    const start = Date.UTC(1970, 0, 1);
    const end = Date.UTC(2100, 0, 1);
    for (let i = 0; i < 10_000; i++) {
      const iso = new Date(start + Math.floor(((end - start) * i) / 10_000) + i).toISOString();
      expect(sqlDateTime(iso)).toBe(roundTrip(iso));
    }
    expect(sqlDateTime('2026-02-28T23:59:59.999Z')).toBe('2026-02-28 23:59:59.999');
  });

  it('converts other ISO 8601 forms to UTC through Date', () => {
    expect(sqlDateTime('2026-11-24T10:00:00+02:00')).toBe('2026-11-24 08:00:00.000');
    expect(sqlDateTime('2026-11-24T10:00:00Z')).toBe('2026-11-24 10:00:00.000');
    expect(sqlDateTime('2026-11-24T10:00:00.5-01:30')).toBe('2026-11-24 11:30:00.500');
  });
});
