/** The API's message views are shared with the operator CLI (libs/contracts/src/api). */
export type { MessageView, RunMessagePage, RunMessageView } from '@ums/contracts';
