import 'reflect-metadata';
import {
  createDataSource,
  loadConfig,
  MysqlConfig,
  mysqlSettingsFrom,
  processEnv,
  revertAllMigrations,
  runPendingMigrations,
} from '@ums/platform';
import { createConnection } from 'mysql2/promise';

/**
 * Schema migrations, the job a deployment runs before rolling out services.
 * Usage: migrate up | down (reverts the last one) | reset (reverts all) | status.
 * `up` creates the database first when it does not exist (development convenience).
 */
async function main(): Promise<void> {
  const command = process.argv[2] ?? 'up';
  const settings = mysqlSettingsFrom(loadConfig(MysqlConfig, processEnv()));
  if (command === 'up') {
    const server = await createConnection({
      host: settings.host,
      port: settings.port,
      user: settings.user,
      password: settings.password,
    });
    await server.query(
      `CREATE DATABASE IF NOT EXISTS \`${settings.database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
    await server.end();
  }
  const dataSource = await createDataSource(settings).initialize();
  try {
    switch (command) {
      case 'up': {
        const applied = await runPendingMigrations(dataSource);
        process.stdout.write(
          `${applied.length} migration(s) applied${applied.length > 0 ? `: ${applied.join(', ')}` : ''}\n`,
        );
        break;
      }
      case 'down':
        await dataSource.undoLastMigration({ transaction: 'each' });
        process.stdout.write('last migration reverted\n');
        break;
      case 'reset':
        process.stdout.write(`${await revertAllMigrations(dataSource)} migration(s) reverted\n`);
        break;
      case 'status':
        process.stdout.write((await dataSource.showMigrations()) ? 'pending migrations\n' : 'up to date\n');
        break;
      default:
        throw new Error(`unknown command "${command}": use up, down, reset or status`);
    }
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`migrate failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
