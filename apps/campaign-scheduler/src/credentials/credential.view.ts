/** The API's credential views are shared with the operator CLI (libs/contracts/src/api). */
export type { CredentialPage, CredentialView } from '@ums/contracts';
