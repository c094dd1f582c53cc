import { Injectable } from '@nestjs/common';
import { IdempotencyErrorCode } from '@ums/contracts';
import { PinoLogger } from 'nestjs-pino';
import { ulid } from 'ulid';
import { SecretBox } from '../crypto/secret-box';
import { ConflictError, errorMessage, UnprocessableError } from '../errors/coded-error';
import {
  type IdempotencyClaim,
  IdempotencyKeysRepository,
  IdempotencyState,
  type IdempotencyTarget,
} from './idempotency-keys.repository';

/** How long a key names its request: a retry within this answers the first answer. */
export const IDEMPOTENCY_KEY_TTL_SECONDS = 24 * 60 * 60;
/**
 * How long a request may hold its key unanswered; past it the row counts as abandoned (its process died)
 * and the next request with the key runs. Far above any create route's time to answer.
 */
export const IDEMPOTENCY_LEASE_SECONDS = 60;
/** Claim attempts against rows that vanish or change meanwhile, before answering 409. */
const CLAIM_ATTEMPTS = 3;

/** An idempotent request: the target key and the fingerprint of its body. */
export interface IdempotentRequest extends IdempotencyTarget {
  readonly requestHash: string;
}

/** What begin() decided: run the request holding `claim`, or answer the stored answer again. */
export type IdempotencyDecision =
  | { readonly kind: 'run'; readonly claim: string }
  | { readonly kind: 'replay'; readonly status: number; readonly body: unknown };

/**
 * Idempotency keys of create requests: the first request with a key claims it (IN_PROGRESS) and stores
 * its answer when it succeeds (sealed, since a created key or subscriber secret is in it); a failed
 * request gives the key up, so it may be retried. A later request with the key gets the stored answer,
 * 422 when its body differs, or 409 while the first one still runs. Keys last 24 h.
 */
@Injectable()
export class IdempotencyService {
  constructor(
    private readonly repository: IdempotencyKeysRepository,
    private readonly box: SecretBox,
    private readonly logger: PinoLogger,
  ) {
    this.logger.setContext(IdempotencyService.name);
  }

  /** Claims the key or finds its answer: two statements (an insert, then a read when the key is taken). */
  async begin(request: IdempotentRequest): Promise<IdempotencyDecision> {
    const claim: IdempotencyClaim = {
      requestHash: request.requestHash,
      claim: ulid(),
      ttlSeconds: IDEMPOTENCY_KEY_TTL_SECONDS,
    };
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      if (await this.repository.insert(request, claim)) return { kind: 'run', claim: claim.claim };
      const found = await this.repository.find(request, IDEMPOTENCY_LEASE_SECONDS);
      if (found === undefined) continue; // released or pruned since the insert: claim again
      if (found.expired || found.abandoned) {
        if (await this.repository.takeOver(request, claim, IDEMPOTENCY_LEASE_SECONDS)) {
          return { kind: 'run', claim: claim.claim };
        }
        continue; // another request took it over first
      }
      if (found.requestHash !== request.requestHash) {
        throw new UnprocessableError(
          IdempotencyErrorCode.KeyReused,
          `Idempotency-Key was used with another request body on ${request.route}; use a new key`,
        );
      }
      if (found.state === IdempotencyState.Completed && found.response !== null) {
        return {
          kind: 'replay',
          status: found.status ?? 200,
          body: JSON.parse(this.box.open(found.response)) as unknown,
        };
      }
      break;
    }
    throw new ConflictError(
      IdempotencyErrorCode.KeyInProgress,
      'A request with this Idempotency-Key is still in progress; retry once it has answered',
    );
  }

  /** Stores the answer of the request holding `claim`. */
  async complete(request: IdempotentRequest, claim: string, status: number, body: unknown): Promise<void> {
    const response = this.box.seal(JSON.stringify(body ?? null));
    if (!(await this.repository.complete(request, claim, { status, response }))) {
      this.logger.warn(
        { route: request.route, tenantId: request.tenantId },
        'Idempotency key taken over before its request answered; its answer is not stored',
      );
    }
  }

  /**
   * Gives the key up after the request failed, so that a retry runs it again. A failure to do so is
   * logged and left to the lease (the row counts as abandoned after IDEMPOTENCY_LEASE_SECONDS): the
   * caller answers the request's own error, not this one.
   */
  async release(request: IdempotentRequest, claim: string): Promise<void> {
    try {
      await this.repository.release(request, claim);
    } catch (error: unknown) {
      this.logger.warn(
        { route: request.route, tenantId: request.tenantId, err: errorMessage(error) },
        'Idempotency key not released after a failed request; it frees itself when its lease ends',
      );
    }
  }
}
