/**
 * Why a sender paused a run (`runs.pause_reason`); NULL for a run paused by a person, which only a
 * person resumes. A top-up of the channel resumes CREDITS_EXHAUSTED runs, the scheduler's sweeper
 * QUOTA_EXHAUSTED ones once the tenant's day and month are under their caps again. The sender also
 * refuses a priority message for the same reasons.
 */
export enum RunPauseReason {
  CreditsExhausted = 'CREDITS_EXHAUSTED',
  QuotaExhausted = 'QUOTA_EXHAUSTED',
}
