import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMariadbServer } from './mariadb-server';
import { connectTestDatabase } from './test-database';

// A server of the test's own on a free port: the machine's MariaDB is never touched.
describe('startMariadbServer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ums-mariadb-'));

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('restarts MariaDB on the same port with its data kept', async () => {
    const server = await startMariadbServer({ dir: dir, bufferPoolMb: 64 });
    try {
      const settings = await server.createDatabase('kept');
      const first = await connectTestDatabase(settings);
      await first.query('CREATE TABLE t (id INT PRIMARY KEY)');
      await first.query('INSERT INTO t VALUES (1)');
      await first.end();
      await server.stop();
      expect(server.running).toBe(false);
      await server.start();
      const second = await connectTestDatabase(settings);
      const [rows] = await second.query('SELECT id FROM t');
      await second.end();
      expect(rows).toEqual([{ id: 1 }]);
    } finally {
      await server.stop();
    }
  }, 120_000);
});
