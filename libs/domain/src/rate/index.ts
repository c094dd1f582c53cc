export * from './aimd-rate';
export * from './congestion-signal';
export * from './token-slots';
