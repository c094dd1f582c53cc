/** Messages per request on the bulk endpoints (Mitto, native), as the shapes document says. */
export const MAX_BULK_MESSAGES = 1000;
