/**
 * Refusals of the HTTP edge shared by every service (libs/platform http): the request as a whole,
 * before or around the route's own rules. Answered as `{ error: { code, message, fields? } }`.
 */
export enum HttpErrorCode {
  /** 400: the body, query or path parameters break the route's DTO rules; `fields` names each one. */
  ValidationFailed = 'VALIDATION_FAILED',
  /** 400: a fast route's body is not well-formed JSON, not UTF-8, or holds a prototype key. */
  BodyInvalid = 'BODY_INVALID',
  /** 413: the body is larger than the route accepts. */
  BodyTooLarge = 'BODY_TOO_LARGE',
  /** 400: a fast route got a Content-Type it does not read. */
  ContentTypeInvalid = 'CONTENT_TYPE_INVALID',
  /** 415: a framework route got a body of a media type it does not read. */
  UnsupportedMediaType = 'UNSUPPORTED_MEDIA_TYPE',
  /** 404: no route answers this path (API or management port). */
  RouteNotFound = 'ROUTE_NOT_FOUND',
  /** 405: the management port answers GET and HEAD only. */
  MethodNotAllowed = 'METHOD_NOT_ALLOWED',
  /** 503: the request bodies being read at once already fill the service's in-flight byte budget. */
  InFlightBytesExceeded = 'IN_FLIGHT_BYTES_EXCEEDED',
  /** 503: MySQL, Redis or Kafka is unavailable, slow or contended; retry later. */
  DependencyUnavailable = 'DEPENDENCY_UNAVAILABLE',
  /** 503: the service is stopping and gave up the work; what was done so far is kept. */
  ServiceShuttingDown = 'SERVICE_SHUTTING_DOWN',
  /** 400: X-Ums-Tenant is not 1-64 of A-Z a-z 0-9 _ . : -. */
  TenantInvalid = 'TENANT_INVALID',
  /** 400: the operator key called a tenant's route without naming the tenant in X-Ums-Tenant. */
  TenantRequired = 'TENANT_REQUIRED',
  /** An outgoing connection was refused: the host is, or resolves to, a non-public address (SSRF guard). */
  AddressNotPublic = 'ADDRESS_NOT_PUBLIC',
  /** 500: an error that is not one of ours (a bug); also the code errorCode() gives such an error. */
  Unexpected = 'UNEXPECTED',
}
