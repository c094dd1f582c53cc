import type { DeliveryPage, DeliveryView } from './delivery.view';
import {
  arrayOf,
  DATE_TIME,
  DECIMAL_ID,
  INTEGER,
  oneOfValues,
  orNull,
  STRING,
  viewRef,
  viewSchema,
} from './view-schema';

const DELIVERY_EXAMPLE: DeliveryView = {
  id: '5521',
  eventId: 'evt_01JD6WC4K2M8P5R1T7V9X3Z6B0',
  eventType: 'message.status',
  state: 'DELIVERED',
  attempts: 1,
  lastStatusCode: 200,
  lastError: null,
  nextAttemptAt: null,
  deliveredAt: '2026-11-24T10:00:02.000Z',
  createdAt: '2026-11-24T10:00:01.000Z',
};

export const DELIVERY_VIEW = viewSchema<DeliveryView>('DeliveryView', {
  description: 'One webhook delivery of a subscriber.',
  properties: {
    id: DECIMAL_ID,
    eventId: STRING,
    eventType: STRING,
    state: oneOfValues(['PENDING', 'DELIVERED', 'RETRYING', 'DEAD_LETTERED', 'MISSED']),
    attempts: INTEGER,
    lastStatusCode: orNull(INTEGER),
    lastError: orNull(STRING),
    nextAttemptAt: orNull(DATE_TIME),
    deliveredAt: orNull(DATE_TIME),
    createdAt: DATE_TIME,
  },
  example: DELIVERY_EXAMPLE,
});

export const DELIVERY_PAGE = viewSchema<DeliveryPage>('DeliveryPage', {
  description: 'Deliveries, newest first; pass `nextBefore` as `before` for the next page (null: the last).',
  properties: { items: arrayOf(viewRef(DELIVERY_VIEW)), nextBefore: orNull(DECIMAL_ID) },
  example: { items: [DELIVERY_EXAMPLE], nextBefore: null },
  uses: [DELIVERY_VIEW],
});

/** POST /v1/subscribers/:id/replay. */
export interface ReplayCountView {
  readonly replayed: number;
}

export const REPLAY_COUNT_VIEW = viewSchema<ReplayCountView>('ReplayCountView', {
  description: 'How many deliveries were queued again.',
  properties: { replayed: INTEGER },
  example: { replayed: 42 },
});
