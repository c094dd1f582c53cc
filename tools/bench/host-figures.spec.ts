import { calibrate, calibrationWorkload, databaseLabel, describeHost } from './host-figures';

describe('host figures', () => {
  it('computes the same checksum for the same workload, and a different one for another size', () => {
    expect(calibrationWorkload(500)).toBe(calibrationWorkload(500));
    expect(calibrationWorkload(501)).not.toBe(calibrationWorkload(500));
  });

  it('times the workload as a positive number of ms with one decimal', () => {
    const ms = calibrate(200);
    expect(ms).toBeGreaterThan(0);
    expect(Math.round(ms * 10) / 10).toBe(ms);
  });

  it('describes the host and the database server in one line', () => {
    expect(
      describeHost({
        cpuModel: 'AMD EPYC',
        cores: 2,
        calibrationMs: 412.5,
        database: { version: '10.11.19-MariaDB', bufferPoolMb: 128, redoLogMb: 96 },
      }),
    ).toBe(
      'host: AMD EPYC, 2 cores, calibration 412.5 ms (lower is faster); MariaDB 10.11.19-MariaDB, ' +
        'buffer pool 128 MiB, redo log 96 MiB',
    );
  });

  it('labels a MySQL server as MySQL, not MariaDB', () => {
    const mysql = {
      cpuModel: 'AMD EPYC',
      cores: 2,
      calibrationMs: 180.1,
      database: { version: '9.7.4-2', bufferPoolMb: 128, redoLogMb: 100 },
    };
    expect(databaseLabel(mysql)).toBe('mysql');
    expect(describeHost(mysql)).toContain('; MySQL 9.7.4-2, buffer pool 128 MiB');
    expect(
      databaseLabel({
        ...mysql,
        database: { version: '10.11.19-MariaDB-0+deb12u1', bufferPoolMb: 128, redoLogMb: 96 },
      }),
    ).toBe('mariadb');
  });
});
