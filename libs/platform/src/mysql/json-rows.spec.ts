import { jsonRows, jsonRowsTable, type JsonRowsColumn } from './json-rows';

const columns: JsonRowsColumn[] = [
  { name: 'id', type: 'BIGINT UNSIGNED' },
  { name: 'delivered_at', type: 'DATETIME(3)' },
  { name: 'provider_message_id', type: 'VARCHAR(256)' },
];

describe('jsonRowsTable', () => {
  it('reads every column from its own key', () => {
    expect(jsonRowsTable(columns, 'v')).toBe(
      "JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT UNSIGNED PATH '$.id', delivered_at DATETIME(3) PATH " +
        "'$.delivered_at', provider_message_id VARCHAR(256) PATH '$.provider_message_id')) v",
    );
  });

  it('refuses a name that is not a plain SQL name', () => {
    expect(() => jsonRowsTable([{ name: "id') x", type: 'BIGINT UNSIGNED' }], 'v')).toThrow(/plain SQL name/);
    expect(() => jsonRowsTable(columns, 'v; DROP')).toThrow(/plain SQL name/);
  });
});

describe('jsonRows', () => {
  it('writes ids as exact JSON numbers, other values as JSON strings, and leaves out nulls', () => {
    const text = jsonRows(columns, [
      {
        id: '18446744073709551615',
        delivered_at: '2026-11-24 10:00:00.123',
        provider_message_id: 'a"b\\c\n',
      },
      { id: '7', delivered_at: null },
    ]);
    expect(text).toBe(
      '[{"id":18446744073709551615,"delivered_at":"2026-11-24 10:00:00.123","provider_message_id":"a\\"b\\\\c\\n"},{"id":7}]',
    );
    // Valid JSON whose strings come back unchanged (the id is past 2^53, so only its text is exact).
    const parsed = JSON.parse(text) as Record<string, unknown>[];
    expect(parsed[0]?.['provider_message_id']).toBe('a"b\\c\n');
    expect(parsed[1]).toEqual({ id: 7 });
  });

  it('refuses an id that is not an unsigned integer', () => {
    expect(() => jsonRows(columns, [{ id: '1,2' }])).toThrow(/id must be an unsigned integer/);
    expect(() => jsonRows(columns, [{ id: '-1' }])).toThrow(/unsigned integer/);
  });

  it('is an empty array for no rows', () => {
    expect(jsonRows(columns, [])).toBe('[]');
  });
});
