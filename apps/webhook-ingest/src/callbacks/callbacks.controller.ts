import { Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { Provider } from '@ums/contracts';
import { InvalidInputError } from '@ums/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type CallbackReceipt, type CallbackRequest, CallbacksService } from './callbacks.service';
import type { CallbackRouteConfig } from './raw-body.parser';

const route = (callbackProvider: Provider): MethodDecorator =>
  RouteConfig({ callbackProvider } satisfies CallbackRouteConfig);

/**
 * One intake URL per provider and credential. Every answer is given only after the events are on
 * Kafka (2xx), or says why not: 400 bad signature or body, 404 unknown credential, 413 too large,
 * 503 Kafka or the database unavailable (the provider retries).
 */
@Controller('v1/callbacks')
export class CallbacksController {
  constructor(private readonly callbacks: CallbacksService) {}

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

  @Post('whatsapp/:credentialId')
  @HttpCode(200)
  @route(Provider.WhatsAppCloud)
  async whatsApp(@Param('credentialId') id: string, @Req() req: FastifyRequest): Promise<CallbackReceipt> {
    return this.callbacks.ingest(Provider.WhatsAppCloud, id, callbackRequest(req));
  }

  /** Twilio reads the answer as TwiML: an empty Response sends no reply to an inbound message. */
  @Post('twilio/:credentialId')
  @HttpCode(200)
  @route(Provider.Twilio)
  async twilio(
    @Param('credentialId') id: string,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    await this.callbacks.ingest(Provider.Twilio, id, callbackRequest(req));
    void reply.header('content-type', 'text/xml; charset=utf-8');
    return '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';
  }

  @Post('mitto/:credentialId')
  @HttpCode(200)
  @route(Provider.Mitto)
  async mitto(@Param('credentialId') id: string, @Req() req: FastifyRequest): Promise<CallbackReceipt> {
    return this.callbacks.ingest(Provider.Mitto, id, callbackRequest(req));
  }

  /** Amazon SNS (SES events): subscription confirmations and notifications, certificate-verified. */
  @Post('ses/:credentialId')
  @HttpCode(200)
  @route(Provider.Ses)
  async ses(@Param('credentialId') id: string, @Req() req: FastifyRequest): Promise<CallbackReceipt> {
    return this.callbacks.ingest(Provider.Ses, id, callbackRequest(req));
  }

  @Post('simulator/:credentialId')
  @HttpCode(200)
  @route(Provider.Simulator)
  async simulator(@Param('credentialId') id: string, @Req() req: FastifyRequest): Promise<CallbackReceipt> {
    return this.callbacks.ingest(Provider.Simulator, id, callbackRequest(req));
  }
}

function callbackRequest(req: FastifyRequest): CallbackRequest {
  if (!Buffer.isBuffer(req.body)) {
    throw InvalidInputError.field(
      'CONTENT_TYPE_INVALID',
      'content-type',
      'must be application/json, application/x-www-form-urlencoded or text/plain with a body',
    );
  }
  return { rawBody: req.body, headers: req.headers, url: req.url, origin: `${req.protocol}://${req.host}` };
}
