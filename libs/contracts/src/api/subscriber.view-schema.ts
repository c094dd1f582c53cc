import type { SubscriberPage, SubscriberState, SubscriberView } from './subscriber.view';
import {
  arrayOf,
  BOOLEAN,
  DATE_TIME,
  described,
  INTEGER,
  orNull,
  STRING,
  unionValues,
  viewRef,
  viewSchema,
} from './view-schema';

const SUBSCRIBER_EXAMPLE: SubscriberView = {
  id: 'sub_01JD6WD7N4Q2S8U0W6Y3A5C9E1',
  tenantId: 'acme',
  url: 'https://hooks.example.com/ums',
  eventTypes: ['message.status'],
  campaignId: null,
  internal: false,
  maxEventsPerRequest: 1,
  state: 'ALIVE',
  lastError: null,
  lastSuccessAt: '2026-11-24T10:00:02.000Z',
  lastFailureAt: null,
  deadSince: null,
  previousSecretExpiresAt: null,
  createdAt: '2026-11-24T09:00:00.000Z',
  updatedAt: '2026-11-24T09:00:00.000Z',
};

export const SUBSCRIBER_VIEW = viewSchema<SubscriberView>('SubscriberView', {
  description: 'A webhook subscriber; `secret` only in the answers of create and rotate-secret.',
  properties: {
    id: STRING,
    tenantId: STRING,
    url: STRING,
    eventTypes: arrayOf(STRING),
    campaignId: orNull(STRING),
    internal: BOOLEAN,
    maxEventsPerRequest: described(
      INTEGER,
      '1: one event per request; more: `webhook.batch` requests of up to this many events.',
    ),
    state: unionValues<SubscriberState>({ ALIVE: true, DEAD: true, DISABLED: true, REPLAYING: true }),
    failuresInWindow: INTEGER,
    lastError: orNull(STRING),
    lastSuccessAt: orNull(DATE_TIME),
    lastFailureAt: orNull(DATE_TIME),
    deadSince: orNull(DATE_TIME),
    previousSecretExpiresAt: orNull(DATE_TIME),
    createdAt: DATE_TIME,
    updatedAt: DATE_TIME,
    secret: described(STRING, 'The signing secret (Standard Webhooks `whsec_...`): shown once.'),
  },
  optional: ['failuresInWindow', 'secret'],
  example: { ...SUBSCRIBER_EXAMPLE, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
});

export const SUBSCRIBER_PAGE = viewSchema<SubscriberPage>('SubscriberPage', {
  description: 'A page of subscribers by id; pass `nextAfter` as `after` for the next one (null: the last).',
  properties: { items: arrayOf(viewRef(SUBSCRIBER_VIEW)), nextAfter: orNull(STRING) },
  example: { items: [{ ...SUBSCRIBER_EXAMPLE, failuresInWindow: 0 }], nextAfter: null },
  uses: [SUBSCRIBER_VIEW],
});
