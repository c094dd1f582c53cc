export * from './send-disposition';
export * from './send-signals';
