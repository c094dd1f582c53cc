/**
 * Refusals of the opt-out API (campaign-scheduler). A CSV the reader cannot parse or decode answers
 * the audience reader's AUDIENCE_CSV_MALFORMED or AUDIENCE_ENCODING_INVALID, as an audience file would.
 */
export enum OptOutErrorCode {
  /** 404: the tenant has no opt-out for this channel and address. */
  NotFound = 'OPT_OUT_NOT_FOUND',
  /** 400: the address is not one of the channel (a phone number for SMS and WhatsApp, else an e-mail). */
  AddressInvalid = 'OPT_OUT_ADDRESS_INVALID',
  /** 400: the multipart upload has no file part. */
  FileMissing = 'OPT_OUT_FILE_MISSING',
  /** 400: the file has no header line with a channel and an address column. */
  HeaderInvalid = 'OPT_OUT_HEADER_INVALID',
  /** 413: the file is larger than AUDIENCE_MAX_BYTES; the rows within that size were imported. */
  TooLarge = 'OPT_OUT_TOO_LARGE',
}
