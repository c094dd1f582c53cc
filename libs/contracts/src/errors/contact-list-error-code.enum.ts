/** Refusals of the contact-list API (campaign-scheduler) and of using a list as a campaign's audience. */
export enum ContactListErrorCode {
  /** 404: the caller's tenant has no contact list with this id (another tenant's is missing too). */
  NotFound = 'CONTACT_LIST_NOT_FOUND',
  /** 404: the list has no import with this id. */
  ImportNotFound = 'CONTACT_LIST_IMPORT_NOT_FOUND',
  /** 400: the list holds addresses of another channel than the campaign sends on. */
  ChannelMismatch = 'CONTACT_LIST_CHANNEL_MISMATCH',
  /** 400: the segment is not an object of attribute names and one or more string values. */
  SegmentInvalid = 'CONTACT_LIST_SEGMENT_INVALID',
  /** 409: the list cannot be deleted while one of its imports is running. */
  ImportRunning = 'CONTACT_LIST_IMPORT_RUNNING',
}
