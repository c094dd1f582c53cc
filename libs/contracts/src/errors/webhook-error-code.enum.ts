/** Refusals of the subscriber API and reasons the webhook-dispatcher stops serving a subscriber. */
export enum SubscriberErrorCode {
  /** 404: no subscriber with this id for the caller's tenant. */
  NotFound = 'SUBSCRIBER_NOT_FOUND',
  /** 409: deliveries are replayed only to an ALIVE subscriber; resurrect it first. */
  NotAlive = 'SUBSCRIBER_NOT_ALIVE',
  /** 409: only a DEAD or DISABLED subscriber can be resurrected. */
  NotDead = 'SUBSCRIBER_NOT_DEAD',
  /** 400: the subscriber URL is not allowed (scheme, credentials, a non-public or internal address). */
  UrlRefused = 'SUBSCRIBER_URL_REFUSED',
  /** 503: the subscriber URL's host could not be resolved now; try again. */
  UrlUnresolved = 'SUBSCRIBER_URL_UNRESOLVED',
  /** 403: only the operator key may create an internal subscriber or change where one points. */
  InternalOperatorOnly = 'SUBSCRIBER_INTERNAL_OPERATOR_ONLY',
  /** A delivery not attempted because too many deliveries wait for its subscriber: sent to a retry tier. */
  Backlogged = 'SUBSCRIBER_BACKLOGGED',
  /** A delivery whose subscriber was deleted: dead-lettered without an attempt. */
  Deleted = 'SUBSCRIBER_DELETED',
  /** The subscriber's secret does not open with SECRETS_KEYS: its deliveries wait on the retry tiers unsigned and unsent. */
  SecretUnreadable = 'SUBSCRIBER_SECRET_UNREADABLE',
}

/** Refusals of the delivery API and why one webhook delivery attempt failed (a delivery's last error). */
export enum DeliveryErrorCode {
  /** 404: the subscriber has no delivery with this id. */
  NotFound = 'DELIVERY_NOT_FOUND',
  /** 409: only settled (delivered or dead-lettered) deliveries are replayed. */
  NotSettled = 'DELIVERY_NOT_SETTLED',
  /** 503: another replay by time kept the replay lock too long; retry later. */
  ReplayBusy = 'DELIVERY_REPLAY_BUSY',
  /** 503: the failure window in Redis cannot be read or written now. */
  FailureWindowUnavailable = 'FAILURE_WINDOW_UNAVAILABLE',
  /** The subscriber did not answer within the attempt's time budget. */
  Timeout = 'TIMEOUT',
  /** The connection failed without a code of its own (reset, refused, TLS). */
  Transport = 'TRANSPORT',
  /** A stored event body is not a JSON object, so it cannot go into a batch. */
  PayloadNotObject = 'WEBHOOK_PAYLOAD_NOT_OBJECT',
}
