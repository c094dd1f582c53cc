/** Refusals about campaign runs (campaign-scheduler API and state rules). */
export enum RunErrorCode {
  /** 404: the campaign has no run with this id. */
  NotFound = 'RUN_NOT_FOUND',
  /** 409: the run's state does not allow this action or event. */
  TransitionRefused = 'RUN_TRANSITION_REFUSED',
  /**
   * 429: the process reads one run timeline at a time and as many wait for their turn as it allows;
   * retry later (or on another replica).
   */
  TimelineBusy = 'RUN_TIMELINE_BUSY',
  /**
   * 409: the run's messages are past MESSAGE_RETENTION_MS and moved (or being moved) to the archive;
   * archived messages are not sent again (retry-failed, resend-unknown).
   */
  Archived = 'RUN_ARCHIVED',
}

/** Refusals about single messages (campaign-scheduler API and state rules). */
export enum MessageErrorCode {
  /** 404: no message with this id (or idempotency key) for the caller's tenant. */
  NotFound = 'MESSAGE_NOT_FOUND',
  /** A status event that the message's current state does not accept (it is absorbed, not applied). */
  TransitionRefused = 'MESSAGE_TRANSITION_REFUSED',
  /**
   * The archiver moved nothing: `messages_archive` lacks a column of `messages` (a migration changed one
   * table only; fix the schema), or a window deleted other rows than it copied (rolled back, retried).
   */
  ArchiveRefused = 'MESSAGE_ARCHIVE_REFUSED',
}
