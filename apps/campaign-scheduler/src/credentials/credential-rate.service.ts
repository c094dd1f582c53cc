import { Injectable } from '@nestjs/common';
import {
  type CredentialCongestionEventView,
  CredentialErrorCode,
  type CredentialRateSecondView,
  type CredentialRateView,
} from '@ums/contracts';
import { NotFoundError, type TenantFilter } from '@ums/platform';
import {
  type CredentialSecondRecord,
  CredentialRateSecondsRepository,
} from './credential-rate-seconds.repository';
import { CredentialsRepository } from './credentials.repository';

/** Congestion events answered at most. */
const MAX_CONGESTION_EVENTS = 50;

/**
 * A credential's rate limiter per second (`credential_rate_seconds`, written by notification-sender):
 * its series, newest rate and congestion events, with its bounds. Another tenant's credential is not
 * found, exactly like a missing one.
 */
@Injectable()
export class CredentialRateService {
  constructor(
    private readonly credentials: CredentialsRepository,
    private readonly seconds: CredentialRateSecondsRepository,
  ) {}

  async rate(tenant: TenantFilter, id: string, seconds: number): Promise<CredentialRateView> {
    const credential = await this.credentials.findById(id, tenant);
    if (credential === undefined) {
      throw new NotFoundError(CredentialErrorCode.NotFound, `No credential ${id}`, { credentialId: id });
    }
    const { tenantId } = credential;
    const [series, latest, events] = await Promise.all([
      this.seconds.series(id, tenantId, seconds),
      this.seconds.latest(id, tenantId),
      this.seconds.congestionEvents(id, tenantId, MAX_CONGESTION_EVENTS),
    ]);
    return {
      credentialId: id,
      rateCeilingPerSec: credential.rateCeilingPerSec,
      rateFloorPerSec: credential.rateFloorPerSec,
      current: latest === undefined ? null : { rate: latest.rate, at: latest.at.toISOString() },
      series: series.map(toSecondView),
      congestionEvents: events.map(toEventView),
    };
  }
}

function toSecondView(record: CredentialSecondRecord): CredentialRateSecondView {
  return {
    at: record.secondAt.toISOString(),
    rate: record.rate,
    granted: record.granted,
    accepted: record.accepted,
    congested: record.congested,
    errors5xx: record.errors5xx,
    timeouts: record.timeouts,
    decreases: record.decreases,
  };
}

function toEventView(record: CredentialSecondRecord): CredentialCongestionEventView {
  return {
    at: record.secondAt.toISOString(),
    rate: record.rate,
    congested: record.congested,
    errors5xx: record.errors5xx,
    timeouts: record.timeouts,
    decreases: record.decreases,
  };
}
