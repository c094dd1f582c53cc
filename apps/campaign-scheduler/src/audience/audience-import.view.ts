/** The API's audience import views are shared with the operator CLI (libs/contracts/src/api). */
export type {
  AudienceImportView,
  ImportSource,
  ImportState,
  ImportSummary,
  RejectedLine,
  RejectView,
} from '@ums/contracts';
