/** Refusals of the campaign API (campaign-scheduler) and of bulk send requests that create campaigns. */
export enum CampaignErrorCode {
  /** 404: no campaign with this id for the caller's tenant. */
  NotFound = 'CAMPAIGN_NOT_FOUND',
  /** 409: the campaign's state does not allow this action (start, pause, resume, cancel, edit). */
  TransitionRefused = 'CAMPAIGN_TRANSITION_REFUSED',
  /** 409: the audience of a campaign that is no longer a draft cannot change. */
  NotEditable = 'CAMPAIGN_NOT_EDITABLE',
  /** 409: an audience import for a campaign whose stored template is missing or unusable. */
  TemplateUnusable = 'CAMPAIGN_TEMPLATE_INVALID',
  /** 409: an audience import for a campaign whose default country has no phone numbering plan. */
  DefaultCountryInvalid = 'CAMPAIGN_DEFAULT_COUNTRY_INVALID',
  /** 400: the schedule (`at` in the past or too far ahead, a bad cron or time zone) is refused. */
  ScheduleInvalid = 'SCHEDULE_INVALID',
  /** 400: the template's text, subject or variables are not valid (also a refused single send request). */
  TemplateInvalid = 'TEMPLATE_INVALID',
  /** 404: no test send with this id for the campaign (of the caller's tenant). */
  TestSendNotFound = 'TEST_SEND_NOT_FOUND',
  /** 400: a test send's recipients are refused (count, a repeated or invalid address, bad variables). */
  TestSendRecipientsInvalid = 'TEST_SEND_RECIPIENTS_INVALID',
  /** 409: an ARCHIVED campaign takes no test sends. */
  TestSendCampaignArchived = 'TEST_SEND_CAMPAIGN_ARCHIVED',
  /** 429: the tenant made as many test sends in the last minute as TEST_SENDS_PER_MINUTE allows. */
  TestSendRateLimited = 'TEST_SEND_RATE_LIMITED',
}
