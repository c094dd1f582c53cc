export * from './test-database';
export * from './message-states';
