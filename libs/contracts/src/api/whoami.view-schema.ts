import { OPERATOR_SCOPES } from '../auth/scope.enum';
import { arrayOf, described, oneOfValues, orNull, STRING, viewSchema } from './view-schema';
import type { WhoamiView } from './whoami.view';

export const WHOAMI_VIEW = viewSchema<WhoamiView>('WhoamiView', {
  description: 'The calling principal: what its credential is, which tenant it acts for, and its scopes.',
  properties: {
    kind: oneOfValues(['api-key', 'operator', 'jwt']),
    id: described(STRING, 'The key id (`key_...`), `operator`, or the JWT subject.'),
    tenantId: described(
      orNull(STRING),
      'The tenant the call acts for; null for the operator acting across tenants (no X-Ums-Tenant).',
    ),
    scopes: arrayOf(oneOfValues(OPERATOR_SCOPES)),
  },
  example: {
    kind: 'api-key',
    id: 'key_01JD6W8Q4M3T7Y2B5N9C0XKZ1A',
    tenantId: 'acme',
    scopes: ['campaigns:read', 'messages:send'],
  },
});
