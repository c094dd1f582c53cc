export * from './mysql-connection-settings';
export * from './data-source-options';
export * from './migration-runner';
export * from './migrations';
