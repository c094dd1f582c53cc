/** An API key as the campaign API shows it: never its token, never its hash. */
export interface ApiKeyView {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly scopes: readonly string[];
  /** The token's recognisable start (`umsk_<id>_`), to match a key found in a log or a scanner's report. */
  readonly prefix: string;
  readonly createdBy: string;
  readonly createdAt: string;
  readonly expiresAt: string | null;
  readonly revokedAt: string | null;
}

/** The answer to a create: the view and, this once, the token itself. */
export interface CreatedApiKeyView extends ApiKeyView {
  readonly key: string;
}

/** GET /v1/api-keys: `next` is the last id of a full page, null otherwise. */
export interface ApiKeyPage {
  readonly items: ApiKeyView[];
  readonly next: string | null;
}
