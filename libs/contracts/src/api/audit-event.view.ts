/** One state-changing API call: who, for which tenant, what, on what, with which result. */
export interface AuditEvent {
  readonly principalKind: string;
  readonly principalId: string;
  readonly tenantId: string | null;
  readonly service: string;
  readonly action: string;
  readonly target: string | null;
  /** The HTTP status answered. */
  readonly status: number;
  /** `ok`, or the error code answered. */
  readonly result: string;
  readonly requestId: string | null;
}

/** An audit event as the campaign API shows it: with its id and when it happened. */
export interface AuditEventView extends AuditEvent {
  readonly id: string;
  readonly occurredAt: string;
}

/** GET /v1/audit-events, newest first: `next` is the last id of a full page, null otherwise. */
export interface AuditEventPage {
  readonly items: AuditEventView[];
  readonly next: string | null;
}
