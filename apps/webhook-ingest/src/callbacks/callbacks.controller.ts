import { Controller, Get, type OnModuleInit, Param, Query, Req, Res } from '@nestjs/common';
import { Provider } from '@ums/contracts';
import { type FastAnswer, type FastRequest, FastRoutes, InFlightBytes, Public } from '@ums/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CallbackCredential } from './callback-credentials.service';
import { CallbacksConfig } from './callbacks.config';
import { CallbacksMetrics } from './callbacks.metrics';
import { type CallbackReceipt, CallbacksService } from './callbacks.service';

// SNS posts JSON as text/plain.
const CONTENT_TYPES = ['application/json', 'application/x-www-form-urlencoded', 'text/plain'];
const TWIML_EMPTY = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';

/**
 * One intake URL per provider and credential. Every answer is given only after the events are on
 * Kafka (2xx), or says why not: 400 bad signature or body, 404 unknown credential, 413 too large,
 * 503 Kafka or the database unavailable, or too many body bytes in flight (the provider retries).
 * The credential is looked up from the path before any of the body is read: an unknown one is
 * answered 404 with the body unread, and only known credentials' bodies count against
 * INGEST_MAX_INFLIGHT_BYTES.
 *
 * The POST intakes are fast routes (answered before Fastify and Nest, see FastRoutes in the
 * platform): a callback is small and they come by the thousand per second, so the framework's work
 * per request was 40% of the ingest's CPU. Bodies stay raw bytes (signatures cover the exact bytes),
 * parsed only after verification, within a size limit per provider. Meta's GET challenge is rare and
 * stays an ordinary Nest route, as do Mitto's reports when its registered URL's method is GET.
 */
@Public('provider callbacks: each is verified against the secret or verify token of its credential')
@Controller('v1/callbacks')
export class CallbacksController implements OnModuleInit {
  constructor(
    private readonly callbacks: CallbacksService,
    private readonly config: CallbacksConfig,
    private readonly routes: FastRoutes,
    private readonly metrics: CallbacksMetrics,
  ) {}

  onModuleInit(): void {
    const inFlight = new InFlightBytes({
      limitBytes: this.config.INGEST_MAX_INFLIGHT_BYTES,
      onRefused: () => this.metrics.inFlightRefusals.inc(),
    });
    this.metrics.track(inFlight);
    const intakes: readonly [Provider, string, number][] = [
      [Provider.WhatsAppCloud, 'whatsapp', this.config.INGEST_WHATSAPP_MAX_BODY_BYTES],
      [Provider.Twilio, 'twilio', this.config.INGEST_TWILIO_MAX_BODY_BYTES],
      [Provider.Mitto, 'mitto', this.config.INGEST_MITTO_MAX_BODY_BYTES],
      [Provider.Ses, 'ses', this.config.INGEST_SES_MAX_BODY_BYTES],
      [Provider.Simulator, 'simulator', this.config.INGEST_SIMULATOR_MAX_BODY_BYTES],
    ];
    for (const [provider, segment, bodyLimitBytes] of intakes) {
      this.routes.register({
        method: 'POST',
        path: `/v1/callbacks/${segment}/:credentialId`,
        bodyLimitBytes,
        // Mitto may POST its report as query parameters with no body (and no content type).
        contentTypes: provider === Provider.Mitto ? [...CONTENT_TYPES, ''] : CONTENT_TYPES,
        inFlight,
        admit: (head) => this.callbacks.credentialFor(provider, head.params['credentialId'] ?? ''),
        handle: (request) => this.intake(provider, request),
      });
    }
  }

  // Content types are set only on success: error answers keep the JSON error shape.
  @Get('whatsapp/:credentialId')
  async whatsAppChallenge(
    @Param('credentialId') credentialId: string,
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const challenge = await this.callbacks.whatsAppChallenge(credentialId, query);
    void reply.header('content-type', 'text/plain; charset=utf-8');
    return challenge;
  }

  /** Mitto's delivery reports when the registered URL's method is GET: the report is the query. */
  @Get('mitto/:credentialId')
  async mittoReport(
    @Param('credentialId') credentialId: string,
    @Req() request: FastifyRequest,
  ): Promise<CallbackReceipt> {
    const credential = await this.callbacks.credentialFor(Provider.Mitto, credentialId);
    return this.callbacks.ingest(credential, {
      rawBody: Buffer.alloc(0),
      headers: request.headers,
      url: request.url,
      origin: `${request.protocol}://${request.host}`,
    });
  }

  private async intake(provider: Provider, request: FastRequest<CallbackCredential>): Promise<FastAnswer> {
    const receipt = await this.callbacks.ingest(request.admitted, {
      rawBody: request.body,
      headers: request.headers,
      url: request.url,
      origin: request.origin,
    });
    // Twilio reads the answer as TwiML: an empty Response sends no reply to an inbound message.
    if (provider === Provider.Twilio) {
      return { status: 200, contentType: 'text/xml; charset=utf-8', body: TWIML_EMPTY };
    }
    return { status: 200, contentType: 'application/json; charset=utf-8', body: JSON.stringify(receipt) };
  }
}
