/** Refusals of the dead-letter API (campaign-scheduler): look-up and replay. */
export enum DeadLetterErrorCode {
  /** 404: no stored dead letter with this id (or one of the ids of a replay). */
  NotFound = 'DEAD_LETTER_NOT_FOUND',
  /** 400: a replay gives ids and filters together, or neither. */
  ReplaySelectionInvalid = 'REPLAY_SELECTION_INVALID',
}
