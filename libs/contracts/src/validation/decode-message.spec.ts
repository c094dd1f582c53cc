import { MessageBatchV1 } from '../messages/message-batch.message';
import { SendRequestKind, SendRequestV1 } from '../messages/send-request.message';
import { Channel } from '../enums/channel.enum';
import { ProviderEventV1 } from '../messages/provider-event.message';
import { WebhookDeliveryV1 } from '../messages/webhook-delivery.message';
import { decodeMessage } from './decode-message';
import { validMessages } from './test/valid-messages.fixture';

// A valid batch: items[0] is { messageId: '1001', recipient: '+4915112345678', variables: { name: 'Ada' } }.
const batch = validMessages['MessageBatchV1']?.[0] as { items: object[] } & Record<string, unknown>;

describe('decodeMessage', () => {
  it('accepts a valid message and returns a class instance', () => {
    const result = decodeMessage(MessageBatchV1, Buffer.from(JSON.stringify(batch)));
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.value).toBeInstanceOf(MessageBatchV1);
      expect(result.value.items[0]?.variables).toEqual({ name: 'Ada' });
    }
  });

  it('refuses bytes that are not JSON, and empty values', () => {
    expect(decodeMessage(MessageBatchV1, Buffer.from('{nope'))).toMatchObject({
      ok: false,
      code: 'INVALID_JSON',
    });
    expect(decodeMessage(MessageBatchV1, null)).toMatchObject({ ok: false, code: 'EMPTY_MESSAGE' });
    expect(decodeMessage(MessageBatchV1, '[1,2]')).toMatchObject({ ok: false, code: 'SCHEMA_VIOLATION' });
  });

  it('refuses a webhook delivery whose payload is not a JSON object (it could not go into a batch)', () => {
    const delivery = validMessages['WebhookDeliveryV1']?.[0] as Record<string, unknown>;
    expect(decodeMessage(WebhookDeliveryV1, JSON.stringify(delivery)).ok).toBe(true);
    for (const payload of ['[1]', '"text"', '{"open":1']) {
      expect(decodeMessage(WebhookDeliveryV1, JSON.stringify({ ...delivery, payload }))).toMatchObject({
        ok: false,
        code: 'SCHEMA_VIOLATION',
        issues: [{ field: 'payload', reason: 'payload must be a JSON object' }],
      });
    }
  });

  it('names each bad field by its path', () => {
    const bad = {
      ...batch,
      seq: -1,
      items: [
        { messageId: 'abc', recipient: '' },
        { messageId: '7', recipient: 'x', variables: { n: 5 } },
      ],
    };
    const result = decodeMessage(MessageBatchV1, JSON.stringify(bad));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      const fields = result.issues.map((i) => i.field);
      expect(fields).toEqual(
        expect.arrayContaining(['seq', 'items[0].messageId', 'items[0].recipient', 'items[1].variables']),
      );
      expect(result.issues.find((i) => i.field === 'items[0].messageId')?.reason).toBe(
        'messageId must be a decimal id',
      );
    }
  });

  it("takes a batch's campaign priority as optional, 1..10", () => {
    expect(decodeMessage(MessageBatchV1, JSON.stringify(batch)).ok).toBe(true);
    const ten = decodeMessage(MessageBatchV1, JSON.stringify({ ...batch, priority: 10 }));
    expect(ten.ok && ten.value.priority).toBe(10);
    for (const priority of [0, 11, 1.5, '2']) {
      const result = decodeMessage(MessageBatchV1, JSON.stringify({ ...batch, priority }));
      expect(result).toMatchObject({ ok: false, code: 'SCHEMA_VIOLATION' });
      if (!result.ok) expect(new Set(result.issues.map((i) => i.field))).toEqual(new Set(['priority']));
    }
  });

  it('refuses, without throwing, a shape class-transformer cannot read', () => {
    // plainToInstance throws on a nested "constructor" key; thrown, it would stop the partition.
    const poison = JSON.stringify({
      ...batch,
      items: [{ ...batch.items[0], variables: { constructor: 'x' } }],
    });
    expect(decodeMessage(MessageBatchV1, poison)).toMatchObject({
      ok: false,
      code: 'SCHEMA_VIOLATION',
      issues: [{ field: '(root)', reason: expect.stringContaining('could not be read as MessageBatchV1') }],
    });
  });

  it('strips unknown fields instead of refusing them (forward-compatible minor changes)', () => {
    const result = decodeMessage(MessageBatchV1, JSON.stringify({ ...batch, addedLater: true }));
    expect(result.ok).toBe(true);
    expect(result.ok && 'addedLater' in result.value).toBe(false);
  });

  it('checks fields that depend on the kind of a send request', () => {
    const base = {
      requestId: 'r1',
      tenantId: 't1',
      channel: Channel.WhatsApp,
      credentialId: 'c',
      content: { text: 'Hi {{name}}' },
      requestedAt: '2026-11-22T05:00:00Z',
    };
    const single = decodeMessage(SendRequestV1, JSON.stringify({ ...base, kind: SendRequestKind.Single }));
    expect(!single.ok && single.issues.map((i) => i.field)).toContain('recipient');
    const bulk = decodeMessage(
      SendRequestV1,
      JSON.stringify({ ...base, kind: SendRequestKind.Bulk, campaignName: 'x' }),
    );
    expect(!bulk.ok && bulk.issues.map((i) => i.field)).toEqual(
      expect.arrayContaining(['audienceUrl', 'recipients']),
    );
    const ok = decodeMessage(
      SendRequestV1,
      JSON.stringify({
        ...base,
        kind: SendRequestKind.Bulk,
        campaignName: 'x',
        recipients: [{ address: '+14155550100' }],
      }),
    );
    expect(ok.ok).toBe(true);
    const noContent = decodeMessage(
      SendRequestV1,
      JSON.stringify({ ...base, content: {}, kind: SendRequestKind.Single, recipient: { address: '+1' } }),
    );
    expect(!noContent.ok && noContent.issues.map((i) => i.field)).toContain('content.text');
  });
});

describe('required nested objects', () => {
  it('refuses a provider status event without its status', () => {
    const result = decodeMessage(
      ProviderEventV1,
      JSON.stringify({
        eventId: 'e',
        kind: 'status',
        provider: 'simulator',
        credentialId: 'c',
        receivedAt: '2026-11-22T05:00:00Z',
      }),
    );
    expect(!result.ok && result.issues.map((i) => i.field)).toContain('status');
  });
});
