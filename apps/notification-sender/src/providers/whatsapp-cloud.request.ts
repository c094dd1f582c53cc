import { Channel, type Provider, SendOutcomeCode } from '@ums/contracts';
import { classifyWhatsAppError } from '@ums/domain';
import type { LoadedCredential, OutgoingMessage, SendOutcome } from './provider-adapter';
import type { ProviderResponse } from './provider-http.client';
import {
  bodyExcerpt,
  type BuiltRequest,
  codeField,
  isSuccess,
  jsonObject,
  objectField,
  outcomeFor,
  retryAfterMs,
  stringField,
  unsendable,
} from './provider-request';

type WhatsAppCredential = LoadedCredential<Provider.WhatsAppCloud>;

/**
 * POST {base}/{apiVersion}/{phoneNumberId}/messages: a text message, or a template message whose
 * body parameters are the content's templateParameters. Our message id travels as
 * `biz_opaque_callback_data`, which Meta echoes in every status webhook.
 */
export function whatsAppRequest(credential: WhatsAppCredential, message: OutgoingMessage): BuiltRequest {
  if (message.channel !== Channel.WhatsApp) {
    return {
      ok: false,
      failure: unsendable(
        SendOutcomeCode.ChannelUnsupported,
        `whatsapp-cloud cannot send ${message.channel}`,
      ),
    };
  }
  const { content } = message;
  // The Cloud API wants the number without its leading +.
  const to = message.recipient.startsWith('+') ? message.recipient.slice(1) : message.recipient;
  let payload: Record<string, unknown>;
  if (content.templateName !== undefined) {
    const parameters = content.templateParameters ?? [];
    payload = {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to,
      type: 'template',
      template: {
        name: content.templateName,
        language: { code: content.templateLanguage ?? credential.config.defaultLanguage },
        ...(parameters.length === 0
          ? {}
          : {
              components: [{ type: 'body', parameters: parameters.map((text) => ({ type: 'text', text })) }],
            }),
      },
      biz_opaque_callback_data: message.messageId,
    };
  } else if (content.text !== undefined && content.text !== '') {
    payload = {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to,
      type: 'text',
      text: { body: content.text },
      biz_opaque_callback_data: message.messageId,
    };
  } else {
    return {
      ok: false,
      failure: unsendable(SendOutcomeCode.ContentInvalid, 'a WhatsApp message needs text or a template'),
    };
  }
  return {
    ok: true,
    request: {
      path: `/${credential.config.apiVersion}/${credential.config.phoneNumberId}/messages`,
      headers: {
        authorization: `Bearer ${credential.secret?.reveal() ?? ''}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(payload),
    },
  };
}

/** 200 with `messages[0].id` is accepted; errors are classified by `error.code`, else the status. */
export function whatsAppOutcome(
  message: OutgoingMessage,
  response: ProviderResponse,
  nowMs: number,
): SendOutcome {
  const json = jsonObject(response.body);
  if (isSuccess(response.status)) {
    const messages = json?.['messages'];
    const first: unknown = Array.isArray(messages) ? messages[0] : undefined;
    return {
      messageId: message.messageId,
      kind: 'accepted',
      providerMessageId: stringField(first, 'id') ?? null,
    };
  }
  const error = objectField(json, 'error');
  // Meta's message is often generic ("(#131000) Something went wrong"); error_data.details says more.
  const text = stringField(error, 'message');
  const details = stringField(objectField(error, 'error_data'), 'details');
  return outcomeFor(
    message,
    classifyWhatsAppError({
      status: response.status,
      code: codeField(error, 'code'),
      message:
        text === undefined
          ? (details ?? bodyExcerpt(response.status, response.body))
          : details === undefined || details === text
            ? text
            : `${text}: ${details}`,
      retryAfterMs: retryAfterMs(response.headers, nowMs),
    }),
  );
}
