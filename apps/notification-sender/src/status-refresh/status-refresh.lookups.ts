import { Injectable } from '@nestjs/common';
import type { Provider } from '@ums/contracts';
import { CredentialLoader } from '../providers/credential-loader.service';
import type { LoadedCredential, StatusLookup, StatusQuery } from '../providers/provider-adapter';
import { StatusApis } from '../providers/status-apis';
import { StatusRefreshConfig } from './status-refresh.config';
import { StatusRefreshMetrics } from './status-refresh.metrics';
import type { RefreshCandidate } from './status-refresh.plan';

const OUTCOME_LABEL: Readonly<Record<StatusLookup['kind'], string>> = {
  accepted: 'accepted',
  'not-received': 'not_received',
  unknown: 'unknown',
};

/** The answers of one credential's provider about its rows. */
export interface CredentialLookups {
  readonly provider: Provider;
  readonly lookups: StatusLookup[];
}

/**
 * Asks a credential's provider (loaded by the CredentialLoader) about its rows: in chunks of the
 * status API's maxLookupBatch, STATUS_REFRESH_CONCURRENCY requests at once. Never throws for provider
 * trouble (those answers are `unknown`).
 */
@Injectable()
export class StatusRefreshLookups {
  constructor(
    private readonly config: StatusRefreshConfig,
    private readonly credentials: CredentialLoader,
    private readonly apis: StatusApis,
    private readonly metrics: StatusRefreshMetrics,
  ) {}

  /** The providers whose rows a refresh can settle. */
  get providers(): Provider[] {
    return this.apis.providers;
  }

  /** Undefined when the credential cannot be used or its provider has no status API. */
  async of(credentialId: string, rows: readonly RefreshCandidate[]): Promise<CredentialLookups | undefined> {
    const loaded = await this.credentials.load(credentialId);
    const api = loaded.ok ? this.apis.of(loaded.credential.provider) : undefined;
    if (!loaded.ok || api === undefined) {
      const provider = loaded.ok ? loaded.credential.provider : 'unknown';
      const outcome = loaded.ok ? 'no_status_api' : 'credential_unusable';
      this.metrics.lookups.inc({ provider, outcome }, rows.length);
      return undefined;
    }
    const { credential } = loaded;
    const lookups = await this.inChunks(credential, Math.max(api.maxLookupBatch, 1), rows, (c, q) =>
      api.lookup(c, q),
    );
    for (const lookup of lookups) {
      this.metrics.lookups.inc({ provider: credential.provider, outcome: OUTCOME_LABEL[lookup.kind] });
    }
    return { provider: credential.provider, lookups };
  }

  private async inChunks(
    credential: LoadedCredential,
    batch: number,
    rows: readonly RefreshCandidate[],
    lookup: (credential: LoadedCredential, queries: readonly StatusQuery[]) => Promise<StatusLookup[]>,
  ): Promise<StatusLookup[]> {
    const chunks: StatusQuery[][] = [];
    for (let start = 0; start < rows.length; start += batch) {
      chunks.push(
        rows.slice(start, start + batch).map((row) => ({
          messageId: row.id,
          recipient: row.recipient,
          providerMessageId: row.providerMessageId,
          claimedAt: row.claimedAt,
        })),
      );
    }
    const results = new Array<StatusLookup[]>(chunks.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let i = next++; i < chunks.length; i = next++) {
        results[i] = await lookup(credential, chunks[i] as StatusQuery[]);
      }
    };
    const workers = Math.min(this.config.STATUS_REFRESH_CONCURRENCY, chunks.length);
    await Promise.all(Array.from({ length: workers }, worker));
    return results.flat();
  }
}
