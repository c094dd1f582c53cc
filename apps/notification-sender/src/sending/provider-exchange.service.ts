import { Injectable } from '@nestjs/common';
import { FailureReason, type MessageBatchV1, SendOutcomeCode } from '@ums/contracts';
import { NOT_SENT_CODES, type SendResult } from '@ums/domain';
import { PinoLogger } from 'nestjs-pino';
import type { LoadedCredential, SendOutcome } from '../providers/provider-adapter';
import { ProviderRegistry } from '../providers/provider-registry.service';
import type { PreparedSend } from './send-claims.service';
import { SendGrantsService } from './send-grants.service';

/** A request that cannot start within this long after its slot takes new tokens instead (see send). */
const GRANT_FRESH_MS = 40;

/** The result of claimed messages whose retaken tokens did not come within the claim's window. */
const WINDOW_PASSED: SendResult = {
  kind: 'retryable',
  reason: FailureReason.Other,
  code: SendOutcomeCode.ClaimWindowPassed,
  detail: 'not sent: no tokens within the claim window',
  congestion: false,
  ambiguous: false,
};

/** A message that was never put on the wire (see NOT_SENT_CODES). */
function notSent(outcome: SendOutcome): boolean {
  return outcome.kind === 'retryable' && NOT_SENT_CODES.has(outcome.code);
}

/** A message the provider layer did not send because its request could not start soon after its slot. */
function isSlotMissed(outcome: SendOutcome): boolean {
  return outcome.kind === 'retryable' && outcome.code === SendOutcomeCode.SlotMissed;
}

/**
 * The provider call of a prepared claim: each message goes at its rate-limit slot through the
 * provider adapter, and none starts past the claim's window. Provider requests are not aborted at
 * shutdown: an answer recorded beats an UNKNOWN.
 */
@Injectable()
export class ProviderExchangeService {
  constructor(
    private readonly providers: ProviderRegistry,
    private readonly grants: SendGrantsService,
    private readonly logger: PinoLogger,
  ) {
    this.logger.setContext(ProviderExchangeService.name);
  }

  /**
   * Sends the prepared messages at their slots. Those whose request could not start within
   * GRANT_FRESH_MS of its slot (timer lag on a busy host, the credential's concurrency) take new
   * tokens and go again, so that a late request never reaches the provider bunched with requests on
   * time; if the tokens do not come within the claim's window they are not sent (retryable, back to
   * PENDING on a retry tier), nor if Redis fails after some of the claim went. A Redis failure while
   * none went is thrown. One outcome per message.
   */
  async send(
    batch: MessageBatchV1,
    credential: LoadedCredential,
    prepared: PreparedSend,
  ): Promise<SendOutcome[]> {
    const done: SendOutcome[] = [];
    let pending = prepared.outgoing;
    let slots: readonly number[] | undefined = prepared.slots;
    while (pending.length > 0) {
      const outcomes = await this.providers.send(credential.id, pending, {
        startBy: prepared.startBy,
        slots,
        // At shutdown they go as they are (retake waits for no tokens then).
        lateAfterMs: this.grants.shuttingDown ? undefined : GRANT_FRESH_MS,
      });
      const missed = new Set(outcomes.filter(isSlotMissed).map((o) => o.messageId));
      done.push(...outcomes.filter((o) => !missed.has(o.messageId)));
      pending = pending.filter((o) => missed.has(o.messageId));
      if (pending.length === 0) break;
      try {
        slots = await this.grants.retake(batch, credential, pending.length, prepared.startBy);
      } catch (error: unknown) {
        // Redis failed: with nothing of the claim sent yet, the error goes on and the claim goes back.
        if (done.every(notSent)) throw error;
        this.logger.warn({ err: error, credentialId: credential.id }, 'Late sends could not retake tokens');
        slots = undefined;
      }
      if (slots === undefined) {
        done.push(...pending.map((o) => ({ messageId: o.messageId, ...WINDOW_PASSED })));
        break;
      }
    }
    return done;
  }
}
