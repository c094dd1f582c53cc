export * from './delivery-outcome';
export * from './subscriber-filter';
export * from './subscriber-url-policy';
export * from './tombstone-policy';
export * from './webhook-batch';
export * from './webhook-retry-schedule';
export * from './webhook-signature';
