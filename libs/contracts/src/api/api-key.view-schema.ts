import { ALL_SCOPES } from '../auth/scope.enum';
import type { ApiKeyPage, ApiKeyView, CreatedApiKeyView } from './api-key.view';
import {
  arrayOf,
  DATE_TIME,
  described,
  oneOfValues,
  orNull,
  STRING,
  viewRef,
  viewSchema,
  type ViewJsonSchema,
} from './view-schema';

const KEY_ID: ViewJsonSchema = { type: 'string', pattern: '^key_[0-9A-HJKMNP-TV-Z]{26}$' };

const apiKeyProperties = {
  id: KEY_ID,
  tenantId: STRING,
  name: STRING,
  scopes: arrayOf(oneOfValues(ALL_SCOPES)),
  prefix: described(STRING, "The token's recognisable start (`umsk_<id>_`)."),
  createdBy: STRING,
  createdAt: DATE_TIME,
  expiresAt: orNull(DATE_TIME),
  revokedAt: orNull(DATE_TIME),
};

const API_KEY_EXAMPLE: ApiKeyView = {
  id: 'key_01JD6W8Q4M3T7Y2B5N9C0XKZ1A',
  tenantId: 'acme',
  name: 'billing-service prod',
  scopes: ['campaigns:read', 'messages:send'],
  prefix: 'umsk_01JD6W8Q4M3T7Y2B5N9C0XKZ1A_',
  createdBy: 'operator',
  createdAt: '2026-11-24T10:00:00.000Z',
  expiresAt: null,
  revokedAt: null,
};

export const API_KEY_VIEW = viewSchema<ApiKeyView>('ApiKeyView', {
  description: 'An API key: never its token, never its hash.',
  properties: apiKeyProperties,
  example: API_KEY_EXAMPLE,
});

export const CREATED_API_KEY_VIEW = viewSchema<CreatedApiKeyView>('CreatedApiKeyView', {
  description: 'A new API key with its token, shown this once (only its hash is stored).',
  properties: { ...apiKeyProperties, key: described(STRING, 'The bearer token: `umsk_<id>_<secret>`.') },
  example: {
    ...API_KEY_EXAMPLE,
    key: 'umsk_01JD6W8Q4M3T7Y2B5N9C0XKZ1A_q3Vh2mX8kP0rT6yW1zB4nC7dF9gJ5sL2aE8uI0oR3tY',
  },
});

export const API_KEY_PAGE = viewSchema<ApiKeyPage>('ApiKeyPage', {
  description:
    'A page of API keys; `next` is the last id of a full page (pass it as `after`), null otherwise.',
  properties: { items: arrayOf(viewRef(API_KEY_VIEW)), next: orNull(KEY_ID) },
  example: { items: [API_KEY_EXAMPLE], next: null },
  uses: [API_KEY_VIEW],
});
