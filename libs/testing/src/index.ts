export * from './kafka/kafka-broker';
export * from './kafka/test-kafka';
export * from './mysql';
export * from './process/compiled-entry';
export * from './process/managed-process';
export * from './process/wait-until';
export * from './redis/test-redis';
export * from './workspace-root';
