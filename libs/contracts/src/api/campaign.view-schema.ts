import { Channel } from '../enums/channel.enum';
import type { MessageContentV1 } from '../messages/message-content.message';
import type { CampaignDetailView, CampaignList, CampaignView } from './campaign.view';
import { RUN_EXAMPLE, RUN_VIEW } from './run.view-schema';
import {
  arrayOf,
  DATE_TIME,
  described,
  INTEGER,
  oneOfValues,
  orNull,
  STRING,
  viewRef,
  viewSchema,
} from './view-schema';

/** A campaign's states (CampaignState of libs/domain, which this library cannot import; a test compares). */
export const CAMPAIGN_STATES = ['DRAFT', 'ACTIVE', 'PAUSED', 'STOPPED', 'COMPLETED', 'ARCHIVED'] as const;

export const MESSAGE_CONTENT = viewSchema<MessageContentV1>('MessageContent', {
  description: 'What is sent: text with `{{variables}}`, or a provider template with positional parameters.',
  properties: {
    text: STRING,
    templateName: STRING,
    templateLanguage: STRING,
    templateParameters: arrayOf(STRING),
    subject: described(STRING, 'E-mail only.'),
  },
  optional: ['text', 'templateName', 'templateLanguage', 'templateParameters', 'subject'],
  example: { text: 'Hello {{name}}, your order {{order}} has shipped.' },
});

const CAMPAIGN_EXAMPLE: CampaignView = {
  id: 'cmp_01JD6WB2E8T9P4R7Q0M3X5Z6N1',
  tenantId: 'acme',
  name: 'December newsletter',
  channel: Channel.Sms,
  credentialId: 'cred_01JD6W9X3R5T8Y1B4N7C0XKZ2B',
  template: MESSAGE_CONTENT.example,
  defaultCountry: 'DE',
  schedule: { kind: 'at', at: '2026-12-01T08:00:00.000Z', cron: null, timeZone: 'Europe/Berlin' },
  nextFireAt: '2026-12-01T08:00:00.000Z',
  priority: 1,
  state: 'ACTIVE',
  createdAt: '2026-11-24T10:00:00.000Z',
  updatedAt: '2026-11-24T10:05:00.000Z',
};

/** The fields of a campaign view, for the views that show a campaign with more (detail, live list). */
export const CAMPAIGN_PROPERTIES = {
  id: STRING,
  tenantId: STRING,
  name: STRING,
  channel: oneOfValues(Object.values(Channel)),
  credentialId: STRING,
  template: viewRef(MESSAGE_CONTENT),
  defaultCountry: orNull(STRING),
  schedule: {
    type: 'object',
    required: ['kind', 'at', 'cron', 'timeZone'],
    properties: {
      kind: oneOfValues(['now', 'at', 'cron']),
      at: orNull(DATE_TIME),
      cron: orNull(STRING),
      timeZone: STRING,
    },
  },
  nextFireAt: orNull(DATE_TIME),
  priority: described(
    INTEGER,
    "1..10: the campaign's weight in its credential's fair share between campaigns, and the order of due runs (higher first).",
  ),
  state: oneOfValues(CAMPAIGN_STATES),
  createdAt: DATE_TIME,
  updatedAt: DATE_TIME,
};

export const CAMPAIGN_VIEW = viewSchema<CampaignView>('CampaignView', {
  description: 'A campaign.',
  properties: CAMPAIGN_PROPERTIES,
  example: CAMPAIGN_EXAMPLE,
  uses: [MESSAGE_CONTENT],
});

export const CAMPAIGN_DETAIL_VIEW = viewSchema<CampaignDetailView>('CampaignDetailView', {
  description: 'A campaign with its audience size and its latest runs (newest first, at most 20).',
  properties: {
    ...CAMPAIGN_PROPERTIES,
    audienceSize: INTEGER,
    runs: arrayOf(viewRef(RUN_VIEW)),
  },
  example: { ...CAMPAIGN_EXAMPLE, audienceSize: 1000, runs: [RUN_EXAMPLE] },
  uses: [MESSAGE_CONTENT, RUN_VIEW],
});

export const CAMPAIGN_LIST = viewSchema<CampaignList>('CampaignList', {
  description: "The caller's campaigns, by id; pass the last id as `after` for the next page.",
  properties: { items: arrayOf(viewRef(CAMPAIGN_VIEW)) },
  example: { items: [CAMPAIGN_EXAMPLE] },
  uses: [CAMPAIGN_VIEW],
});
