export * from './test-database';
export * from './message-states';
export * from './run-row';
export * from './mariadb-server';
export * from './secure-mariadb';
