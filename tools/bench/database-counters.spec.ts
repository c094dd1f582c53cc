import { databaseUse, parseCounters, tableWritesOf, tableWritesPerMessage } from './database-counters';

describe('database counters', () => {
  it('reads the counters it knows from SHOW GLOBAL STATUS rows, whatever their case', () => {
    expect(
      parseCounters([
        { Variable_name: 'Questions', Value: '1200' },
        { Variable_name: 'BYTES_RECEIVED', Value: '5000' },
        { Variable_name: 'Innodb_os_log_written', Value: 'n/a' },
        { Variable_name: 'Uptime', Value: '99' },
      ]),
    ).toEqual({ Questions: 1200, Bytes_received: 5000 });
  });

  it('gives the increase in all and per message, leaving out counters one side lacks', () => {
    expect(
      databaseUse(
        { Questions: 1_000, Bytes_received: 10_000, Innodb_os_log_written: 7 },
        { Questions: 1_250, Bytes_received: 230_000 },
        100,
      ),
    ).toEqual({
      total: { Questions: 250, Bytes_received: 220_000 },
      perMessage: { Questions: 2.5, Bytes_received: 2_200 },
    });
  });

  it('has no per-message figures for an empty run', () => {
    expect(databaseUse({ Questions: 1 }, { Questions: 3 }, 0)).toEqual({
      total: { Questions: 2 },
      perMessage: {},
    });
  });

  it('reads per-table writes as numbers, the most index-weighted first, and divides them per message', () => {
    const writes = tableWritesOf([
      { TABLE_NAME: 'contacts', ROWS_CHANGED: '1000', ROWS_CHANGED_X_INDEXES: '3000' },
      { TABLE_NAME: 'messages', ROWS_CHANGED: 4220, ROWS_CHANGED_X_INDEXES: '29570' },
    ]);
    expect(Object.keys(writes)).toEqual(['messages', 'contacts']);
    expect(tableWritesPerMessage(writes, 1000)).toEqual({
      messages: { rowsChanged: 4.22, rowsChangedXIndexes: 29.57 },
      contacts: { rowsChanged: 1, rowsChangedXIndexes: 3 },
    });
  });
});
