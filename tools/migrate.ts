import 'reflect-metadata';
import {
  connectMysqlServer,
  createDataSource,
  loadConfig,
  MysqlConfig,
  mysqlSettingsFrom,
  explainMysqlRefusal,
  processEnv,
  revertAllMigrations,
  runPendingMigrations,
} from '@ums/platform';

/**
 * Schema migrations, the job a deployment runs before rolling out services, as the migration
 * account (ums_migrator: DDL on the schema; `npm run -s db:grants` prints its grants).
 * Usage: migrate up | down (reverts the last one) | reset (reverts all) | status.
 * `up` creates the database first when it does not exist (development convenience).
 */
async function main(): Promise<void> {
  const command = process.argv[2] ?? 'up';
  const settings = mysqlSettingsFrom(loadConfig(MysqlConfig, processEnv()));
  const explained = async (error: unknown): Promise<unknown> =>
    (await explainMysqlRefusal(error, settings)) ?? error;
  if (command === 'up') {
    const server = await connectMysqlServer(settings);
    try {
      await server.query(
        `CREATE DATABASE IF NOT EXISTS \`${settings.database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
      );
    } finally {
      await server.end();
    }
  }
  const dataSource = await createDataSource(settings)
    .initialize()
    .catch(async (error: unknown) => Promise.reject(await explained(error)));
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
