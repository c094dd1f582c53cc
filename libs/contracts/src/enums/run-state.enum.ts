/** State of one execution of a campaign (see docs/architecture.md, Runs, leases and checkpoints). */
export enum RunState {
  Pending = 'PENDING',
  Scheduled = 'SCHEDULED',
  Running = 'RUNNING',
  Paused = 'PAUSED',
  Completed = 'COMPLETED',
  Stopped = 'STOPPED',
  Failed = 'FAILED',
}
