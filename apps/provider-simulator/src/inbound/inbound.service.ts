import { Injectable } from '@nestjs/common';
import { ConflictError, errorMessage, UnavailableError } from '@ums/platform';
import { CredentialsService } from '../credentials/credentials.service';
import { SimulatorErrorCode } from '../credentials/simulator-error-code.enum';
import { simulatorNow } from '../simulator-clock';
import { buildInboundPost, type InboundReply } from './inbound-payloads';

/** What delivering a reply came to: the provider's message id and how the webhook answered. */
export interface InboundDelivery {
  readonly providerMessageId: string;
  readonly url: string;
  /** The webhook's HTTP status (webhook-ingest answers 200 once the event is on Kafka). */
  readonly status: number;
}

const POST_TIMEOUT_MS = 10_000;

/**
 * Delivers a recipient's reply (STOP, START, anything) to the credential's callback URL in the
 * provider's inbound webhook shape and signature, once, and answers with how the webhook took it:
 * tests drive opt-outs and opt-ins through the same path a real reply takes.
 */
@Injectable()
export class InboundService {
  constructor(private readonly credentials: CredentialsService) {}

  async deliver(credentialId: string, reply: InboundReply): Promise<InboundDelivery> {
    const credential = this.credentials.get(credentialId);
    const url = credential.callbackUrl;
    if (url === undefined) {
      throw new ConflictError<SimulatorErrorCode>(
        SimulatorErrorCode.InboundUnavailable,
        `Simulated credential ${credentialId} has no callbackUrl to deliver replies to`,
      );
    }
    const post = buildInboundPost(credential, url, reply, simulatorNow());
    if (post === undefined) {
      throw new ConflictError<SimulatorErrorCode>(
        SimulatorErrorCode.InboundUnavailable,
        `The ${credential.provider} provider delivers no inbound messages here (twilio and whatsapp-cloud do)`,
      );
    }
    try {
      const response = await fetch(post.url, {
        method: 'POST',
        headers: post.headers,
        body: post.body,
        signal: AbortSignal.timeout(POST_TIMEOUT_MS),
      });
      await response.arrayBuffer();
      return { providerMessageId: post.providerMessageId, url: post.url, status: response.status };
    } catch (error: unknown) {
      throw new UnavailableError<SimulatorErrorCode>(
        SimulatorErrorCode.InboundUnavailable,
        `The reply could not be posted to ${post.url}: ${errorMessage(error)}`,
        undefined,
        { cause: error },
      );
    }
  }
}
