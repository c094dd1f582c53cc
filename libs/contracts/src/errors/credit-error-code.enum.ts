/** Refusals of the credits API (campaign-scheduler). */
export enum CreditErrorCode {
  /**
   * 409: a top-up reference of the tenant and channel was used before for another amount: the first
   * top-up stands, nothing is credited.
   */
  TopUpReferenceReused = 'CREDIT_TOP_UP_REFERENCE_REUSED',
}
