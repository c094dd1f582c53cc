import {
  WEBHOOK_BATCH_TYPE,
  WEBHOOK_BATCH_MAX_BYTES,
  WebhookBatchPayloadError,
  webhookBatchBody,
  webhookBatchItemBytes,
  webhookBatchLength,
  webhookBatchId,
  webhookRequest,
} from './webhook-batch';

const status = (n: number): string =>
  JSON.stringify({
    type: 'message.status',
    timestamp: '2026-11-25T10:00:00.000Z',
    data: { messageId: `m${n}`, state: 'DELIVERED', note: 'quote " and \\ and ünïcode' },
  });

describe('webhookBatchBody', () => {
  it('holds every event, in order, as its own body with its id first', () => {
    const items = [1, 2, 3].map((n) => ({ eventId: `evt-${n}`, payload: status(n) }));
    const body = webhookBatchBody(items, '2026-11-25T10:00:01.000Z');
    const parsed = JSON.parse(body) as { type: string; timestamp: string; data: Record<string, unknown>[] };
    expect(parsed.type).toBe(WEBHOOK_BATCH_TYPE);
    expect(parsed.timestamp).toBe('2026-11-25T10:00:01.000Z');
    expect(parsed.data).toEqual(
      items.map((item) => ({ id: item.eventId, ...(JSON.parse(item.payload) as object) })),
    );
    expect(Object.keys(parsed.data[0] ?? {})[0]).toBe('id');
  });

  it('escapes ids and keeps empty and spaced objects valid', () => {
    const body = webhookBatchBody(
      [
        { eventId: 'a"b\\c', payload: '{}' },
        { eventId: 'x', payload: '{ "type": "t" }' },
      ],
      't',
    );
    expect((JSON.parse(body) as { data: unknown[] }).data).toEqual([
      { id: 'a"b\\c' },
      { id: 'x', type: 't' },
    ]);
  });

  it('is an empty list for no events', () => {
    expect(JSON.parse(webhookBatchBody([], 't'))).toEqual({
      type: WEBHOOK_BATCH_TYPE,
      timestamp: 't',
      data: [],
    });
  });

  it('refuses a body that is not a JSON object, naming the event', () => {
    for (const payload of ['[1]', '"text"', '{"open": 1', '']) {
      expect(() => webhookBatchBody([{ eventId: 'evt-9', payload }], 't')).toThrow(WebhookBatchPayloadError);
    }
    expect(() => webhookBatchBody([{ eventId: 'evt-9', payload: '[1]' }], 't')).toThrow(/evt-9/);
  });

  it('estimates an item at no less than what it adds to the body', () => {
    const items = [1, 2, 3, 4].map((n) => ({ eventId: `evt-ü${n}`, payload: status(n) }));
    const empty = Buffer.byteLength(webhookBatchBody([], 't'));
    const full = Buffer.byteLength(webhookBatchBody(items, 't'));
    const estimated = items.reduce((sum, item) => sum + webhookBatchItemBytes(item), 0);
    expect(estimated).toBeGreaterThanOrEqual(full - empty);
  });
});

describe('webhookBatchLength', () => {
  const item = (bytes: number) => ({ eventId: 'e', payload: `{"p":"${'x'.repeat(bytes - 8)}"}` });
  const same = (entry: { eventId: string; payload: string }) => entry;

  it('takes up to the most events per request', () => {
    const items = Array.from({ length: 7 }, () => item(100));
    expect(webhookBatchLength(items, 5, same)).toBe(5);
    expect(webhookBatchLength(items, 10, same)).toBe(7);
    expect(webhookBatchLength(items, 1, same)).toBe(1);
    expect(webhookBatchLength([], 5, same)).toBe(0);
  });

  it('stops before the body would pass the byte bound, but always takes the first', () => {
    const half = item(WEBHOOK_BATCH_MAX_BYTES / 2);
    expect(webhookBatchLength([half, half, half], 500, same)).toBe(1);
    const huge = item(WEBHOOK_BATCH_MAX_BYTES * 2);
    expect(webhookBatchLength([huge, half], 500, same)).toBe(1);
    expect(webhookBatchLength([item(1_000), item(1_000), huge], 500, same)).toBe(2);
  });
});

describe('webhookRequest', () => {
  it('sends a single event as its own body under its own id', () => {
    expect(webhookRequest([{ eventId: 'evt-1', payload: status(1) }], undefined)).toEqual({
      webhookId: 'evt-1',
      body: status(1),
    });
  });

  it('sends a batch, even of one event, as a webhook.batch under its batch id', () => {
    const request = webhookRequest([{ eventId: 'evt-1', payload: status(1) }], {
      subscriberId: 'sub_1',
      timestamp: 't',
    });
    expect(request.webhookId).toBe(webhookBatchId('sub_1', ['evt-1']));
    expect(JSON.parse(request.body)).toMatchObject({ type: WEBHOOK_BATCH_TYPE, data: [{ id: 'evt-1' }] });
  });

  it('refuses several events without a batch', () => {
    const two = [1, 2].map((n) => ({ eventId: `evt-${n}`, payload: status(n) }));
    expect(() => webhookRequest(two, undefined)).toThrow(RangeError);
    expect(() => webhookRequest([], undefined)).toThrow(RangeError);
  });
});

describe('webhookBatchId', () => {
  const ids = (n: number): string[] => Array.from({ length: n }, (_, i) => `evt-${i}`);

  it('is batch_ and 26 base32 characters, the same for the same events in any order', () => {
    const id = webhookBatchId('sub_1', ids(100));
    expect(id).toMatch(/^batch_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(webhookBatchId('sub_1', [...ids(100)].reverse())).toBe(id);
    expect(webhookBatchId('sub_1', ids(100))).toBe(id);
  });

  it('differs for another set of events or another subscriber', () => {
    const seen = new Set([
      webhookBatchId('sub_1', ids(100)),
      webhookBatchId('sub_1', ids(99)),
      webhookBatchId('sub_1', [...ids(99), 'evt-100']),
      webhookBatchId('sub_1', ['evt-0']),
      webhookBatchId('sub_2', ids(100)),
      // Ids are separated, so shifting characters between them changes the id.
      webhookBatchId('sub_1', ['ab', 'c']),
      webhookBatchId('sub_1', ['a', 'bc']),
    ]);
    expect(seen.size).toBe(7);
  });

  it('spreads over the whole alphabet (every character of the digest is used)', () => {
    const chars = new Set(
      Array.from({ length: 200 }, (_, i) => webhookBatchId('sub_1', [`e${i}`]).slice(6)).join(''),
    );
    expect(chars.size).toBe(32);
  });
});
