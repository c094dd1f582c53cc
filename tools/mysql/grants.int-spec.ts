import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { grantStatements } from '@ums/contracts';
import { compiledEntry, connectTestDatabase, createTestDatabase, type TestMysqlSettings } from '@ums/testing';

const run = promisify(execFile);

/** `npm run db:grants -- apply` as a DBA runs it: the compiled tool, as the server's administrator. */
describe('db-grants apply (real MariaDB)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    db = await createTestDatabase('ums_grants_tool');
  });
  afterAll(async () => {
    await db?.drop();
  });

  const grantsOf = async (settings: TestMysqlSettings, account: string): Promise<string[]> => {
    const connection = await connectTestDatabase(settings);
    try {
      const [rows] = await connection.query(`SHOW GRANTS FOR ${account}`);
      return (rows as Record<string, string>[]).map((row) => Object.values(row)[0] ?? '');
    } finally {
      await connection.end();
    }
  };

  it('grants every account its privileges on MYSQL_DATABASE, and names an account that does not exist', async () => {
    const entry = compiledEntry('tools/mysql/grants.ts');
    const env = {
      ...process.env,
      MYSQL_HOST: db.admin.host,
      MYSQL_PORT: String(db.admin.port),
      MYSQL_USER: db.admin.user,
      MYSQL_PASSWORD: db.admin.password,
      MYSQL_DATABASE: db.admin.database,
    };
    // createTestDatabase granted them already: take the expander's away, and let the tool give it back.
    const connection = await connectTestDatabase(db.admin);
    await connection.query(`REVOKE INSERT ON \`${db.admin.database}\`.* FROM 'ums_expander'@'%'`);
    await connection.end();
    expect((await grantsOf(db.admin, "'ums_expander'@'%'")).join('\n')).not.toContain(
      `GRANT SELECT, INSERT, UPDATE ON \`${db.admin.database}\`.*`,
    );
    const applied = await run(entry.command, [...entry.args, 'apply'], { env });
    expect(applied.stdout.trim().split('\n')).toEqual(
      grantStatements({ database: db.admin.database }).map((statement) => `${statement};`),
    );
    expect((await grantsOf(db.admin, "'ums_expander'@'%'")).join('\n')).toContain(
      `GRANT SELECT, INSERT, UPDATE ON \`${db.admin.database}\`.*`,
    );

    const missing = await run(entry.command, [...entry.args, 'apply', '--name', 'ums_sender=ums_nobody'], {
      env,
    }).then(
      () => undefined,
      (error: unknown) => error as { code: number; stderr: string },
    );
    expect(missing?.code).toBe(1);
    expect(missing?.stderr).toContain("db-grants failed: 'ums_nobody'@'%' does not exist: create it first");
  }, 60_000);
});
