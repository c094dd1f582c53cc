import { Provider } from '@ums/contracts';
import { mittoStatusLookup, mittoStatusRequest } from './mitto.status';
import type { StatusQuery } from './provider-adapter';
import type { ProviderResponse } from './provider-http.client';
import { credentialFor } from './test/provider-fixtures';

const credential = credentialFor(Provider.Mitto, { baseUrl: 'https://rest.mittoapi.com', from: 'ACME' }, 'k');
const query: StatusQuery = {
  messageId: '42',
  recipient: '+4915100000042',
  providerMessageId: null,
  claimedAt: new Date('2026-01-01T00:00:00Z'),
};
const answer = (status: number, body: unknown): ProviderResponse => ({
  status,
  headers: {},
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

describe('mittoStatusRequest', () => {
  it('asks by our reference with the API key', () => {
    expect(mittoStatusRequest(credential, { ...query, messageId: '4 2' })).toEqual({
      path: '/sms/status?reference=4%202',
      headers: { 'x-mitto-api-key': 'k', accept: 'application/json' },
    });
  });
});

describe('mittoStatusLookup', () => {
  const found = (status: string, extra: Record<string, unknown> = {}): ProviderResponse =>
    answer(200, {
      reference: '42',
      id: 'm-42',
      to: '4915100000042',
      status,
      timestamp: '2026-01-01T00:00:05.000Z',
      responseCode: 0,
      responseText: 'OK',
      ...extra,
    });

  it('reads an accepted message with its furthest status', () => {
    expect(mittoStatusLookup(query, found('sent'))).toEqual({
      messageId: '42',
      kind: 'accepted',
      providerMessageId: 'm-42',
      status: 'sent',
      at: new Date('2026-01-01T00:00:05.000Z'),
    });
    expect(mittoStatusLookup(query, found('delivered'))).toMatchObject({ status: 'delivered' });
    expect(mittoStatusLookup(query, found('undelivered', { code: 'UNDELIVERABLE' }))).toMatchObject({
      kind: 'accepted',
      status: 'failed',
      errorCode: 'UNDELIVERABLE',
    });
  });

  it('says not-received for an unknown reference (404)', () => {
    expect(mittoStatusLookup(query, answer(404, { responseText: 'No message' }))).toEqual({
      messageId: '42',
      kind: 'not-received',
    });
  });

  it('leaves the row unknown for errors and answers it cannot read', () => {
    for (const response of [
      answer(500, { responseCode: 1, responseText: 'Internal error' }),
      answer(401, { responseText: 'Missing or invalid X-Mitto-API-Key' }),
      answer(200, 'OK'),
      found('queued'),
      found('sent', { responseCode: 1 }),
    ]) {
      expect(mittoStatusLookup(query, response)).toMatchObject({ messageId: '42', kind: 'unknown' });
    }
  });
});
