export * from './audience';
export * from './campaign-state/campaign-state-machine';
export * from './expansion/expansion-plan';
export * from './message-state/message-state-machine';
export * from './message-status/message-status-progress';
export * from './run-state/run-state-machine';
export * from './schedule/cron-schedule';
export * from './template/message-template';
