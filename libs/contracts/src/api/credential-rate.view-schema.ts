import type { CredentialRateView } from './credential-rate.view';
import { arrayOf, DATE_TIME, described, INTEGER, orNull, STRING, viewSchema } from './view-schema';

const RATE = described({ type: 'number' }, 'AIMD rate, messages per second.');
const COUNT = INTEGER;

/** The per-second figures of a congestion event (a second with an AIMD decrease). */
const CONGESTION_PROPERTIES = {
  at: DATE_TIME,
  rate: RATE,
  congested: described(COUNT, 'Provider answers that asked to slow down (429 or its equivalent).'),
  errors5xx: COUNT,
  timeouts: COUNT,
  decreases: described(COUNT, 'AIMD decreases applied in the second.'),
};

const SECOND = {
  type: 'object',
  required: ['at', 'rate', 'granted', 'accepted', 'congested', 'errors5xx', 'timeouts', 'decreases'],
  properties: {
    ...CONGESTION_PROPERTIES,
    granted: described(COUNT, 'Tokens (messages) granted.'),
    accepted: COUNT,
  },
};

const EVENT = {
  type: 'object',
  required: Object.keys(CONGESTION_PROPERTIES),
  properties: CONGESTION_PROPERTIES,
};

const EXAMPLE: CredentialRateView = {
  credentialId: 'cred_01JD6W9X3R5T8Y1B4N7C0XKZ2B',
  rateCeilingPerSec: 100,
  rateFloorPerSec: 5,
  current: { rate: 47.5, at: '2026-11-24T10:00:02.000Z' },
  series: [
    {
      at: '2026-11-24T10:00:01.000Z',
      rate: 95,
      granted: 95,
      accepted: 80,
      congested: 12,
      errors5xx: 0,
      timeouts: 0,
      decreases: 1,
    },
    {
      at: '2026-11-24T10:00:02.000Z',
      rate: 47.5,
      granted: 48,
      accepted: 48,
      congested: 0,
      errors5xx: 0,
      timeouts: 0,
      decreases: 0,
    },
  ],
  congestionEvents: [
    { at: '2026-11-24T10:00:01.000Z', rate: 95, congested: 12, errors5xx: 0, timeouts: 0, decreases: 1 },
  ],
};

export const CREDENTIAL_RATE_VIEW = viewSchema<CredentialRateView>('CredentialRateView', {
  description:
    "What a credential's rate limiter did per second, summed over every sender replica: the AIMD rate, " +
    'tokens (messages) granted, the provider answers per provider request (as AIMD counts them: a bulk ' +
    'request is one) and the AIMD decreases.',
  properties: {
    credentialId: STRING,
    rateCeilingPerSec: INTEGER,
    rateFloorPerSec: INTEGER,
    current: orNull({
      type: 'object',
      description: 'The newest second recorded and its rate.',
      required: ['rate', 'at'],
      properties: { rate: RATE, at: DATE_TIME },
    }),
    series: described(
      arrayOf(SECOND),
      'The seconds asked for that have figures, oldest first; a second without any has no entry.',
    ),
    congestionEvents: described(
      arrayOf(EVENT),
      'Seconds of the last 24 hours with an AIMD decrease, newest first, at most 50.',
    ),
  },
  example: EXAMPLE,
});
