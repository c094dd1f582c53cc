import { Injectable } from '@nestjs/common';
import { ConcurrencyLimit } from './concurrency-limit';
import { ProvidersConfig } from './providers.config';

/**
 * One request limit per credential, shared by every batch being sent with it, so that many
 * batches at once never open more than PROVIDER_CONCURRENCY_PER_CREDENTIAL requests.
 */
@Injectable()
export class CredentialConcurrency {
  private readonly limits = new Map<string, ConcurrencyLimit>();

  constructor(private readonly config: ProvidersConfig) {}

  of(credentialId: string): ConcurrencyLimit {
    let limit = this.limits.get(credentialId);
    if (limit === undefined) {
      limit = new ConcurrencyLimit(this.config.PROVIDER_CONCURRENCY_PER_CREDENTIAL);
      this.limits.set(credentialId, limit);
    }
    return limit;
  }
}
