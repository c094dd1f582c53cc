export * from './aimd-rate';
export * from './congestion-signal';
export * from './token-slots';
export * from './grant-lead';
