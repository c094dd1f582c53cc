import { Channel } from '../enums/channel.enum';
import { Provider } from '../enums/provider.enum';
import type { CredentialPage, CredentialView } from './credential.view';
import {
  arrayOf,
  BOOLEAN,
  DATE_TIME,
  described,
  INTEGER,
  oneOfValues,
  orNull,
  STRING,
  viewRef,
  viewSchema,
} from './view-schema';

const CREDENTIAL_EXAMPLE: CredentialView = {
  id: 'cred_01JD6W9X3R5T8Y1B4N7C0XKZ2B',
  tenantId: 'acme',
  name: 'Twilio EU',
  provider: Provider.Twilio,
  channel: Channel.Sms,
  config: { accountSid: 'AC0123456789abcdef0123456789abcdef', from: '+4915112345678' },
  hasSecret: true,
  hasCallbackSecret: true,
  hasWebhookVerifyToken: false,
  rateCeilingPerSec: 100,
  rateFloorPerSec: 5,
  tenantRateCapPerSec: null,
  createdAt: '2026-11-24T10:00:00.000Z',
  updatedAt: '2026-11-24T10:00:00.000Z',
};

export const CREDENTIAL_VIEW = viewSchema<CredentialView>('CredentialView', {
  description: 'A provider account: never the secret, only whether one is stored.',
  properties: {
    id: STRING,
    tenantId: STRING,
    name: STRING,
    provider: oneOfValues(Object.values(Provider)),
    channel: oneOfValues(Object.values(Channel)),
    config: described(
      { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean'] } },
      'Non-secret settings, as given.',
    ),
    hasSecret: BOOLEAN,
    hasCallbackSecret: BOOLEAN,
    hasWebhookVerifyToken: BOOLEAN,
    rateCeilingPerSec: INTEGER,
    rateFloorPerSec: INTEGER,
    tenantRateCapPerSec: orNull(INTEGER),
    createdAt: DATE_TIME,
    updatedAt: DATE_TIME,
  },
  example: CREDENTIAL_EXAMPLE,
});

export const CREDENTIAL_PAGE = viewSchema<CredentialPage>('CredentialPage', {
  description:
    'A page of credentials by id; pass `nextAfter` as `after` for the next one (null: the last page).',
  properties: { items: arrayOf(viewRef(CREDENTIAL_VIEW)), nextAfter: orNull(STRING) },
  example: { items: [CREDENTIAL_EXAMPLE], nextAfter: null },
  uses: [CREDENTIAL_VIEW],
});
