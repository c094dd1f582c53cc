import { Channel } from '../../enums/channel.enum';
import { FailureReason } from '../../enums/failure-reason.enum';
import { MessageStatus } from '../../enums/message-status.enum';
import { Provider } from '../../enums/provider.enum';
import { SubscriberAlertKind } from '../../enums/subscriber-alert-kind.enum';
import { MessageHandlingErrorCode } from '../../errors/message-handling-error-code.enum';
import { SendLane } from '../../messages/message-batch.message';
import { ProviderEventKind } from '../../messages/provider-event.message';
import { RunState } from '../../enums/run-state.enum';
import { RunLifecycleEvent } from '../../messages/run-lifecycle.message';
import { RunRequestReason } from '../../messages/run-requested.message';
import { SendRequestKind } from '../../messages/send-request.message';

const at = '2026-11-24T10:00:00.000Z';

/** Valid values of every topic class, by class name (a new topic class without one fails fast-accept's spec). */
export const validMessages: Readonly<Record<string, readonly object[]>> = {
  SendRequestV1: [
    {
      requestId: 'req-1',
      kind: SendRequestKind.Single,
      tenantId: 't1',
      channel: Channel.Sms,
      credentialId: 'cred-1',
      content: { text: 'Hi {{name}}' },
      recipient: { address: '+4915112345678', variables: { name: 'Ada' } },
      requestedAt: at,
    },
    {
      requestId: 'req-2',
      kind: SendRequestKind.Bulk,
      tenantId: 't1',
      channel: Channel.WhatsApp,
      credentialId: 'cred-1',
      content: { templateName: 'welcome', templateLanguage: 'en', templateParameters: ['a', 'b'] },
      campaignName: 'Spring',
      recipients: [{ address: '+4915112345678' }, { address: '+4915112345679', variables: { a: 'b' } }],
      defaultCountry: 'DE',
      sendAt: at,
      requestedAt: at,
    },
  ],
  RunRequestedV1: [
    {
      runId: '42',
      campaignId: 'c1',
      tenantId: 't1',
      leaseEpoch: 0,
      reason: RunRequestReason.Manual,
      requestedAt: at,
    },
  ],
  MessageBatchV1: [
    {
      batchId: 'run-1:0',
      lane: SendLane.Bulk,
      tenantId: 't1',
      campaignId: 'c1',
      runId: '42',
      seq: 0,
      leaseEpoch: 3,
      credentialId: 'cred-1',
      channel: Channel.Sms,
      items: [
        { messageId: '1001', recipient: '+4915112345678', variables: { name: 'Ada' } },
        { messageId: '1002', recipient: '+4915112345679' },
      ],
      createdAt: at,
    },
    {
      batchId: 'single-1',
      lane: SendLane.Priority,
      tenantId: 't1',
      campaignId: 'req-1',
      seq: 0,
      leaseEpoch: 0,
      credentialId: 'cred-1',
      channel: Channel.Email,
      content: { text: 'Hello', subject: 'Hi' },
      items: [{ messageId: '7', recipient: 'ada@example.com' }],
      createdAt: at,
    },
  ],
  ProviderEventV1: [
    {
      eventId: 'pe-1',
      kind: ProviderEventKind.Status,
      provider: Provider.Simulator,
      credentialId: 'cred-1',
      status: {
        messageId: '1001',
        providerMessageId: 'sim-1',
        status: MessageStatus.Failed,
        reason: FailureReason.Blocked,
        errorCode: 'E1',
        errorText: 'no',
        occurredAt: at,
      },
      receivedAt: at,
    },
    {
      eventId: 'pe-2',
      kind: ProviderEventKind.Inbound,
      provider: Provider.Twilio,
      credentialId: 'cred-1',
      inbound: {
        from: '+4915112345678',
        to: '+15550001',
        text: 'STOP',
        providerMessageId: 'SM1',
        optOut: true,
        occurredAt: at,
      },
      receivedAt: at,
    },
  ],
  MessageStatusV1: [
    {
      eventId: 'evt-1',
      messageId: '1001',
      tenantId: 't1',
      campaignId: 'c1',
      runId: '42',
      channel: Channel.Sms,
      recipient: '+4915112345678',
      status: MessageStatus.Sent,
      previousStatus: MessageStatus.Sending,
      providerMessageId: 'sim-1',
      occurredAt: at,
    },
  ],
  InboundMessageV1: [
    {
      eventId: 'in-1',
      tenantId: 't1',
      credentialId: 'cred-1',
      channel: Channel.WhatsApp,
      from: '+4915112345678',
      to: '+15550001',
      text: 'hello',
      providerMessageId: 'wamid.1',
      optOut: false,
      occurredAt: at,
    },
    {
      eventId: 'in-2',
      tenantId: 't1',
      credentialId: 'cred-1',
      channel: Channel.Sms,
      from: '+4915112345678',
      to: '+15550001',
      text: 'START',
      providerMessageId: 'SM2',
      optOut: false,
      optIn: true,
      occurredAt: at,
    },
  ],
  WebhookDeliveryV1: [
    {
      deliveryId: '12',
      subscriberId: 'sub-1',
      eventId: 'evt-1',
      eventType: 'message.status',
      payload: '{"type":"message.status"}',
      attempt: 2,
      firstAttemptAt: at,
    },
  ],
  SubscriberAlertV1: [
    {
      subscriberId: 'sub-1',
      tenantId: 't1',
      kind: SubscriberAlertKind.Tombstoned,
      failuresInWindow: 20,
      windowMs: 60000,
      lastError: 'HTTP 500',
      at,
    },
  ],
  DeadLetterV1: [
    {
      sourceTopic: 'ums.send.batches.v1',
      sourcePartition: 3,
      sourceOffset: '1234',
      consumerGroup: 'notification-sender',
      key: 'c1',
      value: '{}',
      valueEncoding: 'utf8',
      headers: { 'ums-attempt': '5' },
      errorCode: MessageHandlingErrorCode.RetriesExhausted,
      reason: 'HTTP 503',
      attempts: 5,
      failedAt: at,
    },
  ],
  RunLifecycleV1: [
    {
      eventId: 'run-42-7',
      tenantId: 't1',
      campaignId: 'c1',
      runId: '42',
      event: RunLifecycleEvent.Started,
      state: RunState.Running,
      previousState: RunState.Scheduled,
      counters: {
        total: 10,
        pending: 10,
        sending: 0,
        sent: 0,
        delivered: 0,
        read: 0,
        failed: 0,
        unknown: 0,
        skipped: 0,
      },
      occurredAt: at,
    },
    {
      eventId: 'run-43-9',
      tenantId: 't1',
      campaignId: 'c1',
      runId: '43',
      event: RunLifecycleEvent.Failed,
      state: RunState.Failed,
      previousState: RunState.Running,
      counters: {
        total: 3,
        pending: 1,
        sending: 0,
        sent: 1,
        delivered: 0,
        read: 0,
        failed: 1,
        unknown: 0,
        skipped: 0,
      },
      reason: 'checkpoint stale since 2026-11-24T09:50:00.000Z after 5 retries',
      occurredAt: at,
    },
  ],
};
