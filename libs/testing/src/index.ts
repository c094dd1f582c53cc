export * from './mysql';
export * from './kafka/kafka-broker';
export * from './kafka/test-kafka';
export * from './process/managed-process';
export * from './process/wait-until';
export * from './workspace-root';
export * from './process/compiled-entry';
export * from './redis/test-redis';
