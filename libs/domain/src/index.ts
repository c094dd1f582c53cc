export * from './message-status/message-status-progress';
export * from './run-state/run-state-machine';
