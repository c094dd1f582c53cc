import type { AuditEventPage, AuditEventView } from './audit-event.view';
import {
  arrayOf,
  DATE_TIME,
  DECIMAL_ID,
  described,
  INTEGER,
  orNull,
  STRING,
  viewRef,
  viewSchema,
} from './view-schema';

const AUDIT_EVENT_EXAMPLE: AuditEventView = {
  id: '1042',
  occurredAt: '2026-11-24T10:00:00.000Z',
  principalKind: 'api-key',
  principalId: 'key_01JD6W8Q4M3T7Y2B5N9C0XKZ1A',
  tenantId: 'acme',
  service: 'campaign-scheduler',
  action: 'POST /v1/campaigns',
  target: 'cmp_01JD6WB2E8T9P4R7Q0M3X5Z6N1',
  status: 201,
  result: 'ok',
  requestId: 'req-7f3a',
};

export const AUDIT_EVENT_VIEW = viewSchema<AuditEventView>('AuditEventView', {
  description: 'One state-changing API call: who, for which tenant, what, on what, with which result.',
  properties: {
    id: DECIMAL_ID,
    occurredAt: DATE_TIME,
    principalKind: STRING,
    principalId: STRING,
    tenantId: orNull(STRING),
    service: STRING,
    action: described(STRING, '`METHOD /route`, e.g. `POST /v1/campaigns/:campaignId/:action`.'),
    target: orNull(STRING),
    status: described(INTEGER, 'The HTTP status answered.'),
    result: described(STRING, '`ok`, or the error code answered.'),
    requestId: orNull(STRING),
  },
  example: AUDIT_EVENT_EXAMPLE,
});

export const AUDIT_EVENT_PAGE = viewSchema<AuditEventPage>('AuditEventPage', {
  description: 'Audit events, newest first; `next` is the last id of a full page (pass it as `before`).',
  properties: { items: arrayOf(viewRef(AUDIT_EVENT_VIEW)), next: orNull(DECIMAL_ID) },
  example: { items: [AUDIT_EVENT_EXAMPLE], next: null },
  uses: [AUDIT_EVENT_VIEW],
});
