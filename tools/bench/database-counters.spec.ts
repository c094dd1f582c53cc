import { databaseUse, parseCounters } from './database-counters';

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
});
