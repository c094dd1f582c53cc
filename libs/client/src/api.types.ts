import type * as scheduler from './generated/campaign-scheduler';
import type * as dispatcher from './generated/webhook-dispatcher';

/** The campaign-scheduler's document, as types: its paths, operations (by operationId) and schemas. */
export type SchedulerPaths = scheduler.paths;
export type SchedulerOperations = scheduler.operations;
export type SchedulerSchemas = scheduler.components['schemas'];
/** The webhook-dispatcher's. */
export type DispatcherPaths = dispatcher.paths;
export type DispatcherOperations = dispatcher.operations;
export type DispatcherSchemas = dispatcher.components['schemas'];

/** The JSON body an operation takes. */
export type JsonBodyOf<Op> = Op extends {
  readonly requestBody?: { readonly content: { readonly 'application/json': infer B } };
}
  ? B
  : never;

/** The query parameters of an operation. */
export type QueryOf<Op> = Op extends { readonly parameters: { readonly query?: infer Q } }
  ? NonNullable<Q>
  : never;

/** A path parameter of an operation (e.g. the actions a route takes). */
export type PathParamOf<Op, Name extends string> = Op extends {
  readonly parameters: { readonly path: { readonly [K in Name]: infer P } };
}
  ? P
  : never;

// The answers of the campaign API, by the names the document gives them.
export type ApiKeyPage = SchedulerSchemas['ApiKeyPage'];
export type ApiKeyView = SchedulerSchemas['ApiKeyView'];
export type CreatedApiKeyView = SchedulerSchemas['CreatedApiKeyView'];
export type AuditEventPage = SchedulerSchemas['AuditEventPage'];
export type CredentialPage = SchedulerSchemas['CredentialPage'];
export type CredentialView = SchedulerSchemas['CredentialView'];
export type CreditsView = SchedulerSchemas['CreditsView'];
export type CreditAccountView = SchedulerSchemas['CreditAccountView'];
export type CreditQuotasView = SchedulerSchemas['CreditQuotasView'];
export type CreditLedgerPage = SchedulerSchemas['CreditLedgerPage'];
export type CreditLedgerEntryView = SchedulerSchemas['CreditLedgerEntryView'];
export type CreditTopUpView = SchedulerSchemas['CreditTopUpView'];
export type CreditPriceView = SchedulerSchemas['CreditPriceView'];
export type CreditQuotasUpdateView = SchedulerSchemas['CreditQuotasUpdateView'];
export type CampaignList = SchedulerSchemas['CampaignList'];
export type CampaignView = SchedulerSchemas['CampaignView'];
export type CampaignDetailView = SchedulerSchemas['CampaignDetailView'];
export type TestSendPage = SchedulerSchemas['TestSendPage'];
export type TestSendView = SchedulerSchemas['TestSendView'];
export type TestSendRecipientView = SchedulerSchemas['TestSendRecipientView'];
export type RunList = SchedulerSchemas['RunList'];
export type RunView = SchedulerSchemas['RunView'];
export type RunCounters = SchedulerSchemas['RunCounters'];
export type RunActionResult = SchedulerSchemas['RunActionResult'];
export type RunEventList = SchedulerSchemas['RunEventList'];
export type RunEventView = SchedulerSchemas['RunEventView'];
export type RunTimelineView = SchedulerSchemas['RunTimelineView'];
export type RunMessagePage = SchedulerSchemas['RunMessagePage'];
export type ImportSummary = SchedulerSchemas['ImportSummary'];
export type AudienceImportList = SchedulerSchemas['AudienceImportList'];
export type MessageView = SchedulerSchemas['MessageView'];
export type MessageSendView = SchedulerSchemas['MessageSendView'];
export type BulkSendView = SchedulerSchemas['BulkSendView'];
export type OptOutPage = SchedulerSchemas['OptOutPage'];
export type OptOutView = SchedulerSchemas['OptOutView'];
export type OptOutImportSummary = SchedulerSchemas['OptOutImportSummary'];
export type DeadLetterPage = SchedulerSchemas['DeadLetterPage'];
export type DeadLetterView = SchedulerSchemas['DeadLetterView'];
export type DeadLetterReplayResult = SchedulerSchemas['DeadLetterReplayResult'];
export type ErrorBody = SchedulerSchemas['ErrorBody'];
// The dispatcher's.
export type SubscriberPage = DispatcherSchemas['SubscriberPage'];
export type SubscriberView = DispatcherSchemas['SubscriberView'];
export type DeliveryPage = DispatcherSchemas['DeliveryPage'];
export type DeliveryView = DispatcherSchemas['DeliveryView'];
export type ReplayCountView = DispatcherSchemas['ReplayCountView'];
