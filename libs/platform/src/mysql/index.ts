export * from './data-source-options';
export * from './json-rows';
export * from './migration-runner';
export * from './migrations';
export * from './mysql-connection-settings';
export * from './mysql-settings.mapper';
export * from './mysql.module';
export * from './sql-values';
