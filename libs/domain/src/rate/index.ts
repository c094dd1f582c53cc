export * from './aimd-rate';
export * from './congestion-signal';
