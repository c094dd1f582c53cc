/** State of one execution of a campaign (see ARCHITECTURE.md, Runs and checkpoints). */
export enum RunState {
  Pending = 'PENDING',
  Scheduled = 'SCHEDULED',
  Running = 'RUNNING',
  Paused = 'PAUSED',
  Completed = 'COMPLETED',
  Stopped = 'STOPPED',
  Failed = 'FAILED',
}
