import {
  grantStatements,
  MYSQL_SERVICE_GRANTS,
  MYSQL_SERVICE_USERS,
  mysqlUserOfService,
  quoteSqlString,
  revokeStatements,
} from './service-grants';

describe('MySQL service grants', () => {
  it('gives DDL to the migrator only', () => {
    const ddl = ['CREATE', 'ALTER', 'DROP', 'INDEX', 'REFERENCES'];
    for (const user of MYSQL_SERVICE_USERS) {
      const privileges = MYSQL_SERVICE_GRANTS[user].grants.flatMap((g) => g.privileges);
      const hasDdl = privileges.some((p) => ddl.includes(p));
      expect([user, hasDdl]).toEqual([user, user === 'ums_migrator']);
    }
  });

  it('maps each service to its own account', () => {
    expect(mysqlUserOfService('notification-sender')).toBe('ums_sender');
    expect(mysqlUserOfService('webhook-ingest')).toBe('ums_ingest');
    expect(mysqlUserOfService('provider-simulator')).toBeUndefined();
    const services = MYSQL_SERVICE_USERS.map((u) => MYSQL_SERVICE_GRANTS[u].service);
    expect(new Set(services).size).toBe(services.length);
  });

  it('writes GRANT and REVOKE statements for one schema', () => {
    expect(grantStatements({ database: 'ums', users: ['ums_ingest', 'ums_expander'] })).toEqual([
      "GRANT SELECT ON `ums`.* TO 'ums_ingest'@'%'",
      "GRANT SELECT, INSERT, UPDATE ON `ums`.* TO 'ums_expander'@'%'",
    ]);
    expect(
      revokeStatements({
        database: 'ums',
        users: ['ums_sender'],
        host: '10.%',
        names: { ums_sender: 'prod_sender' },
      }),
    ).toEqual(["REVOKE SELECT, INSERT, UPDATE, DELETE ON `ums`.* FROM 'prod_sender'@'10.%'"]);
  });

  it('refuses a schema name that is not a plain identifier', () => {
    expect(() => grantStatements({ database: 'ums`; DROP DATABASE x; --' })).toThrow(/database/);
  });

  it('quotes string literals', () => {
    expect(quoteSqlString("it's \\ fine")).toBe("'it''s \\\\ fine'");
  });
});
