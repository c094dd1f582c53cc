/** The API's dead-letter views are shared with the operator CLI (libs/contracts/src/api). */
export type { DeadLetterPage, DeadLetterReplayResult as ReplayResult, DeadLetterView } from '@ums/contracts';
