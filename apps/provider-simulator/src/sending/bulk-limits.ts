/** Messages (receivers of Mitto's /smsbulk) per request on the bulk endpoints, as the shapes document says. */
export const MAX_BULK_MESSAGES = 1000;
