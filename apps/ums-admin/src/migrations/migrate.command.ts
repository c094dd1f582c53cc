import {
  connectMysqlServer,
  createDataSource,
  explainMysqlRefusal,
  loadConfig,
  MysqlConfig,
  type MysqlConnectionSettings,
  mysqlSettingsFrom,
  processEnv,
  revertAllMigrations,
  runPendingMigrations,
} from '@ums/platform';
import type { DataSource } from 'typeorm';
import type { MigrateAction } from '../admin-command.parser';

/** `up` creates the database first when it does not exist (development convenience). */
async function ensureDatabase(settings: MysqlConnectionSettings): Promise<void> {
  const server = await connectMysqlServer(settings);
  try {
    await server.query(
      `CREATE DATABASE IF NOT EXISTS \`${settings.database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
  } finally {
    await server.end();
  }
}

/** What the action did, as the line it prints. */
async function runAction(dataSource: DataSource, action: MigrateAction): Promise<string> {
  switch (action) {
    case 'up': {
      const applied = await runPendingMigrations(dataSource);
      return `${applied.length} migration(s) applied${applied.length > 0 ? `: ${applied.join(', ')}` : ''}`;
    }
    case 'down':
      await dataSource.undoLastMigration({ transaction: 'each' });
      return 'last migration reverted';
    case 'reset':
      return `${await revertAllMigrations(dataSource)} migration(s) reverted`;
    case 'status':
      return (await dataSource.showMigrations()) ? 'pending migrations' : 'up to date';
  }
}

/**
 * Schema migrations, the job a deployment runs before rolling out services, as the migration
 * account (ums_migrator: DDL on the schema; `npm run -s db:grants` prints its grants).
 */
export async function migrate(action: MigrateAction): Promise<number> {
  const settings = mysqlSettingsFrom(loadConfig(MysqlConfig, processEnv()));
  if (action === 'up') await ensureDatabase(settings);
  const dataSource = await createDataSource(settings)
    .initialize()
    .catch(async (error: unknown) => Promise.reject((await explainMysqlRefusal(error, settings)) ?? error));
  try {
    process.stdout.write(`${await runAction(dataSource, action)}\n`);
  } finally {
    await dataSource.destroy();
  }
  return 0;
}
