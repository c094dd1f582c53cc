import { Provider } from '@ums/contracts';
import type { StatusQuery } from './provider-adapter';
import { simulatorLookupRequest, simulatorLookups } from './simulator.status';
import { credentialFor } from './test/provider-fixtures';

const queries: StatusQuery[] = ['1', '2', '3', '4', '5', '6'].map((messageId) => ({
  messageId,
  recipient: `+49151${messageId}`,
  providerMessageId: null,
  claimedAt: new Date('2026-11-28T10:00:00Z'),
}));
const json = (status: number, body: unknown) => ({ status, headers: {}, body: JSON.stringify(body) });

describe('simulator status lookups', () => {
  it('names the credential and our ids, with the key', () => {
    const credential = credentialFor(Provider.Simulator, { baseUrl: 'http://127.0.0.1:1' }, 'k', {
      id: 'c1',
    });
    const request = simulatorLookupRequest(credential, queries.slice(0, 2));
    expect(request.path).toBe('/sim/v1/messages/lookup');
    expect(request.headers['authorization']).toBe('Bearer k');
    expect(JSON.parse(request.body)).toEqual({ credentialId: 'c1', messageIds: ['1', '2'] });
  });

  it('maps found, not found, untracked, unreadable and missing items', () => {
    const answer = json(200, {
      results: [
        { messageId: '1', found: true, providerMessageId: 'sim-1', status: 'delivered' },
        { messageId: '2', found: true, providerMessageId: 'sim-2', status: 'failed', code: 'UNDELIVERABLE' },
        { messageId: '3', found: false },
        { messageId: '4', found: false, tracked: false },
        { messageId: '5', found: true, status: 'bounced' },
      ],
    });
    expect(simulatorLookups(queries, answer)).toEqual([
      { messageId: '1', kind: 'accepted', providerMessageId: 'sim-1', status: 'delivered' },
      {
        messageId: '2',
        kind: 'accepted',
        providerMessageId: 'sim-2',
        status: 'failed',
        errorCode: 'UNDELIVERABLE',
      },
      { messageId: '3', kind: 'not-received' },
      { messageId: '4', kind: 'unknown', detail: 'the simulator no longer tracks it' },
      { messageId: '5', kind: 'unknown', detail: 'unreadable lookup item (status bounced)' },
      { messageId: '6', kind: 'unknown', detail: 'not in the lookup answer' },
    ]);
  });

  it('leaves every row unknown when the lookup fails', () => {
    const lookups = simulatorLookups(queries.slice(0, 2), json(503, { error: { code: 'TEMPORARY_ERROR' } }));
    expect(lookups.map((l) => l.kind)).toEqual(['unknown', 'unknown']);
  });
});
