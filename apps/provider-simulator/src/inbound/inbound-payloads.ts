import { randomBytes } from 'node:crypto';
import { Provider } from '@ums/contracts';
import { hubSignature256, twilioSignature } from '../callbacks/callback-signatures';
import type { SimulatedCredential } from '../credentials/simulated-credential';

/** A reply from a recipient, as a test asks the simulator to send it. */
export interface InboundReply {
  /** The recipient's number (E.164); WhatsApp webhooks carry it without the `+`. */
  readonly from: string;
  readonly text: string;
  /** The business number it was sent to; the credential's sender (or phone number id) by default. */
  readonly to?: string;
}

/** One signed POST of an inbound webhook, ready to send. */
export interface InboundPost {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly providerMessageId: string;
}

/** Providers whose inbound webhooks the simulator sends (as the real ones deliver replies). */
export function sendsInbound(provider: Provider): boolean {
  return provider === Provider.Twilio || provider === Provider.WhatsAppCloud;
}

/**
 * The provider's inbound webhook for one reply, signed as the provider signs it: Twilio's incoming
 * message form (`SmsStatus=received`, X-Twilio-Signature), or Meta's `messages` webhook with a text
 * message (X-Hub-Signature-256). Undefined for providers without inbound messages.
 */
export function buildInboundPost(
  credential: SimulatedCredential,
  url: string,
  reply: InboundReply,
  nowMs: number,
): InboundPost | undefined {
  const id = randomBytes(16).toString('hex');
  if (credential.provider === Provider.Twilio) {
    const providerMessageId = `SM${id}`;
    const params: Record<string, string> = {
      AccountSid: credential.account.accountSid ?? '',
      ApiVersion: '2010-04-01',
      Body: reply.text,
      From: reply.from,
      MessageSid: providerMessageId,
      NumMedia: '0',
      NumSegments: '1',
      SmsMessageSid: providerMessageId,
      SmsSid: providerMessageId,
      SmsStatus: 'received',
      To: reply.to ?? credential.account.from ?? '',
    };
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
    };
    if (credential.callbackSecret !== undefined) {
      headers['x-twilio-signature'] = twilioSignature(credential.callbackSecret, url, params);
    }
    return { url, headers, body: new URLSearchParams(params).toString(), providerMessageId };
  }
  if (credential.provider === Provider.WhatsAppCloud) {
    const providerMessageId = `wamid.${id}`;
    const body = JSON.stringify(metaInbound(credential, reply, providerMessageId, nowMs));
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (credential.callbackSecret !== undefined) {
      headers['x-hub-signature-256'] = hubSignature256(credential.callbackSecret, body);
    }
    return { url, headers, body, providerMessageId };
  }
  return undefined;
}

/** Meta's `messages` webhook carrying one text message (Cloud API webhook reference). */
function metaInbound(
  credential: SimulatedCredential,
  reply: InboundReply,
  providerMessageId: string,
  nowMs: number,
): unknown {
  const phoneNumberId = credential.account.phoneNumberId ?? '';
  const waId = reply.from.replace(/^\+/, '');
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
                display_phone_number: reply.to ?? credential.account.displayPhoneNumber ?? phoneNumberId,
                phone_number_id: phoneNumberId,
              },
              contacts: [{ profile: { name: waId }, wa_id: waId }],
              messages: [
                {
                  from: waId,
                  id: providerMessageId,
                  timestamp: String(Math.floor(nowMs / 1000)),
                  type: 'text',
                  text: { body: reply.text },
                },
              ],
            },
          },
        ],
      },
    ],
  };
}
