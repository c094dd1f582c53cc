/** Refusals and failures of audience imports (campaign-scheduler): files, URLs and inline recipients. */
export enum AudienceErrorCode {
  /** 404: the campaign has no audience import with this id. */
  ImportNotFound = 'AUDIENCE_IMPORT_NOT_FOUND',
  /** 400: the multipart upload has no file part. */
  FileMissing = 'AUDIENCE_FILE_MISSING',
  /** 400: the audience URL is not an absolute http(s) URL. */
  UrlInvalid = 'AUDIENCE_URL_INVALID',
  /** 400: the audience URL answered something other than 2xx (a redirect is not followed). */
  UrlFailed = 'AUDIENCE_URL_FAILED',
  /** 413: the file (uploaded or fetched) is larger than AUDIENCE_MAX_BYTES. */
  TooLarge = 'AUDIENCE_TOO_LARGE',
  /** 400: the file has no usable header line (empty, blank, duplicate or unnamed columns, no address). */
  HeaderInvalid = 'AUDIENCE_HEADER_INVALID',
  /** 400: the header lacks columns the campaign's template uses. */
  ColumnsMissing = 'AUDIENCE_COLUMNS_MISSING',
  /** 400: the file is not CSV the reader can parse (an unclosed quote, a line too long). */
  CsvMalformed = 'AUDIENCE_CSV_MALFORMED',
  /** 400: the file is not UTF-8 text from some line on. */
  EncodingInvalid = 'AUDIENCE_ENCODING_INVALID',
  /** 400: the inline recipients list is empty, too long, or has entries of the wrong shape. */
  RecipientsInvalid = 'AUDIENCE_RECIPIENTS_INVALID',
  /** The import's process stopped while it was RUNNING (no sign of life for AUDIENCE_IMPORT_STALE_MS): FAILED. */
  ImportAbandoned = 'AUDIENCE_IMPORT_ABANDONED',
}
