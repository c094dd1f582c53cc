import { Channel, Provider } from '@ums/contracts';
import { chunkItems, type SimulatedStatus } from '@ums/domain';
import type { SimulatedCredential } from '../credentials/simulated-credential';
import { hubSignature256, twilioSignature } from './callback-signatures';
import type { StatusEvent } from './status-event';

/** One HTTP POST of status callbacks, signed, ready to send (and to resend as is). */
export interface CallbackPost {
  readonly credentialId: string;
  readonly provider: Provider;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly events: number;
  readonly epoch: number;
  /** Posts with the same key are sent one after the other, so their statuses arrive in plan order. */
  readonly orderKey: string;
}

/** Whether a provider reports `sent` and `read` on a channel (see docs/provider-shapes.md). */
export function statusCapabilities(provider: Provider, channel: Channel): { sent: boolean; read: boolean } {
  return {
    sent: provider !== Provider.Mitto,
    read: channel === Channel.WhatsApp && provider !== Provider.Mitto,
  };
}

/** Providers whose callbacks the simulator sends (SES reports through SNS: not simulated). */
export function sendsCallbacks(provider: Provider): boolean {
  return provider !== Provider.Ses;
}

const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded; charset=utf-8';
const UNDELIVERABLE = 'UNDELIVERABLE';

/**
 * The POSTs for events due to one URL of one credential, in each provider's webhook shape: Meta
 * batches statuses in one webhook and the native API posts arrays (up to `batchSize` events
 * each); Twilio and Mitto post one status per request, as they do. Posts are ordered per URL
 * (Meta, native) or per message (Twilio, Mitto): only the configured out-of-order rate reorders.
 */
export function buildCallbackPosts(
  credential: SimulatedCredential,
  url: string,
  events: readonly StatusEvent[],
  nowMs: number,
  batchSize: number,
): CallbackPost[] {
  const posts: CallbackPost[] = [];
  const post = (
    headers: Record<string, string>,
    body: string,
    count: number,
    epoch: number,
    of?: string,
    postUrl = url,
  ): void => {
    const orderKey = `${credential.id}\n${url}${of !== undefined ? `\n${of}` : ''}`;
    posts.push({
      credentialId: credential.id,
      provider: credential.provider,
      url: postUrl,
      headers,
      body,
      events: count,
      epoch,
      orderKey,
    });
  };
  switch (credential.provider) {
    case Provider.WhatsAppCloud:
      for (const chunk of chunkItems(events, batchSize)) {
        const body = JSON.stringify(metaWebhook(credential, chunk, nowMs));
        post(
          signedJson(body, 'x-hub-signature-256', credential.callbackSecret),
          body,
          chunk.length,
          chunk[0]?.epoch ?? 0,
        );
      }
      break;
    case Provider.Simulator:
      for (const chunk of chunkItems(events, batchSize)) {
        const body = JSON.stringify({ events: chunk.map((e) => nativeEvent(e, nowMs)) });
        post(
          signedJson(body, 'x-sim-signature', credential.callbackSecret),
          body,
          chunk.length,
          chunk[0]?.epoch ?? 0,
        );
      }
      break;
    case Provider.Twilio:
      for (const event of events) {
        const params = twilioParams(credential, event);
        const headers: Record<string, string> = { 'content-type': FORM_TYPE };
        if (credential.callbackSecret !== undefined) {
          headers['x-twilio-signature'] = twilioSignature(credential.callbackSecret, url, params);
        }
        post(headers, new URLSearchParams(params).toString(), 1, event.epoch, event.send.providerMessageId);
      }
      break;
    case Provider.Mitto:
      for (const event of events) {
        const reportUrl = mittoReportUrl(url, credential.callbackSecret, mittoReport(event, nowMs));
        post({ 'content-type': FORM_TYPE }, '', 1, event.epoch, event.send.providerMessageId, reportUrl);
      }
      break;
    case Provider.Ses:
      break;
  }
  return posts;
}

function signedJson(body: string, header: string, secret: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': JSON_TYPE };
  if (secret !== undefined) headers[header] = hubSignature256(secret, body);
  return headers;
}

/** Meta's `messages` webhook with a `statuses` array (Cloud API webhook reference). */
function metaWebhook(
  credential: SimulatedCredential,
  events: readonly StatusEvent[],
  nowMs: number,
): unknown {
  const phoneNumberId = credential.account.phoneNumberId ?? '';
  const timestamp = String(Math.floor(nowMs / 1000));
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: credential.account.wabaId ?? `WABA-${phoneNumberId}`,
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: {
                display_phone_number: credential.account.displayPhoneNumber ?? phoneNumberId,
                phone_number_id: phoneNumberId,
              },
              statuses: events.map((e) => metaStatus(e, timestamp)),
            },
          },
        ],
      },
    ],
  };
}

function metaStatus(event: StatusEvent, timestamp: string): Record<string, unknown> {
  const { send, status } = event;
  const item: Record<string, unknown> = {
    id: send.providerMessageId,
    status,
    timestamp,
    recipient_id: send.to.replace(/^\+/, ''),
  };
  if (send.messageId !== undefined) item['biz_opaque_callback_data'] = send.messageId;
  if (status === 'sent' || status === 'delivered') {
    // Billing details ride on sent and delivered statuses; their values do not matter here.
    item['conversation'] = { id: `CONV-${send.providerMessageId.slice(-16)}`, origin: { type: 'marketing' } };
    item['pricing'] = { billable: true, pricing_model: 'PMP', category: 'marketing' };
  }
  if (status === 'failed') {
    item['errors'] = [
      {
        code: 131026,
        title: 'Message undeliverable',
        message: 'Message undeliverable',
        error_data: { details: 'Message Undeliverable.' },
      },
    ];
  }
  return item;
}

const TWILIO_STATUS: Readonly<Record<SimulatedStatus, string>> = {
  sent: 'sent',
  delivered: 'delivered',
  read: 'read',
  failed: 'undelivered',
};

/** Twilio's status callback parameters (Messaging status callback reference). */
function twilioParams(credential: SimulatedCredential, event: StatusEvent): Record<string, string> {
  const { send } = event;
  const status = TWILIO_STATUS[event.status];
  const params: Record<string, string> = {
    AccountSid: credential.account.accountSid ?? '',
    ApiVersion: '2010-04-01',
    From: send.from ?? '',
    MessageSid: send.providerMessageId,
    MessageStatus: status,
    SmsSid: send.providerMessageId,
    SmsStatus: status,
    To: send.to,
  };
  // 30003: unreachable destination handset, a typical carrier failure after sending.
  if (event.status === 'failed') params['ErrorCode'] = '30003';
  return params;
}

/** The query parameter of the registered Mitto callback URL that carries the shared token. */
export const MITTO_TOKEN_PARAM = 'ums_token';

/** Mitto's delivery report parameters (docs/provider-shapes.md): no `sent`, `undelivered` on failure. */
function mittoReport(event: StatusEvent, nowMs: number): Record<string, string> {
  const failed = event.status === 'failed';
  return {
    id: event.send.providerMessageId,
    reference: event.send.messageId ?? '',
    to: event.send.to.replace(/^\+/, ''),
    status: failed ? 'undelivered' : event.status,
    ...(failed ? { code: UNDELIVERABLE } : {}),
    timestamp: new Date(nowMs).toISOString(),
  };
}

/**
 * The URL Mitto calls: the registered URL (the credential's callback URL, which carries the shared
 * token as `ums_token` when the credential has a callback secret) plus the report's parameters.
 */
export function mittoReportUrl(
  registered: string,
  token: string | undefined,
  report: Readonly<Record<string, string>>,
): string {
  const url = new URL(registered);
  if (token !== undefined && !url.searchParams.has(MITTO_TOKEN_PARAM)) {
    url.searchParams.set(MITTO_TOKEN_PARAM, token);
  }
  for (const [name, value] of Object.entries(report)) url.searchParams.set(name, value);
  return url.toString();
}

function nativeEvent(event: StatusEvent, nowMs: number): Record<string, unknown> {
  return {
    messageId: event.send.messageId ?? null,
    providerMessageId: event.send.providerMessageId,
    status: event.status,
    ...(event.status === 'failed' ? { code: UNDELIVERABLE } : {}),
    timestamp: new Date(nowMs).toISOString(),
  };
}
