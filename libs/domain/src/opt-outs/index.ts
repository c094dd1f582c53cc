export * from './opt-out-row';
