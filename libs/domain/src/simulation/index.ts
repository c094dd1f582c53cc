export * from './callback-plan';
export * from './latency-profile';
export * from './sliding-window-counter';
