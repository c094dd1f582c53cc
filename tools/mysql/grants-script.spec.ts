import { grantsScript, parseGrantsArgs } from './grants-script';

describe('db-grants', () => {
  it('prints how to create each account, then its grants', () => {
    const script = grantsScript({ database: 'ums', host: '10.0.%', names: { ums_sender: 'prod_sender' } });
    expect(script).toContain(
      "--   CREATE USER 'prod_sender'@'10.0.%' IDENTIFIED BY '...';  -- notification-sender",
    );
    expect(script).toContain("GRANT SELECT, INSERT, UPDATE, DELETE ON `ums`.* TO 'prod_sender'@'10.0.%';");
    expect(script).toContain("GRANT SELECT ON `ums`.* TO 'ums_ingest'@'10.0.%';");
    expect(script.filter((line) => line.startsWith('GRANT'))).toHaveLength(6);
  });

  it('reads its options and refuses unknown ones', () => {
    expect(parseGrantsArgs(['print', '--database', 'prod', '--name', 'ums_migrator=ddl'])).toEqual({
      command: 'print',
      database: 'prod',
      host: '%',
      names: { ums_migrator: 'ddl' },
    });
    expect(() => parseGrantsArgs(['show'])).toThrow('usage');
    expect(() => parseGrantsArgs(['print', '--name', 'root=x'])).toThrow('--name');
    expect(() => parseGrantsArgs(['print', '--verbose', 'x'])).toThrow('unknown option');
  });
});
