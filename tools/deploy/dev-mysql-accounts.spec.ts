import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { grantStatements, MYSQL_SERVICE_USERS } from '@ums/contracts';
import { workspaceRoot } from '@ums/testing';

/** The dev overlay's MySQL makes the accounts from a SQL file: it must grant what service-grants.ts says. */
describe('k8s/overlays/dev/mysql-accounts.sql', () => {
  const sql = readFileSync(join(workspaceRoot(), 'k8s/overlays/dev/mysql-accounts.sql'), 'utf8');
  const statements = sql
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('--'))
    .map((line) => line.replace(/;$/, ''));

  it('grants exactly what libs/contracts service-grants.ts gives each account', () => {
    expect(statements.filter((s) => s.startsWith('GRANT '))).toEqual(grantStatements({ database: 'ums' }));
  });

  it('creates every service account (the mysql image creates ums_migrator)', () => {
    const created = statements
      .filter((s) => s.startsWith('CREATE USER '))
      .map((s) => /'([^']+)'@/.exec(s)?.[1]);
    expect(created).toEqual(MYSQL_SERVICE_USERS.filter((user) => user !== 'ums_migrator'));
  });
});
