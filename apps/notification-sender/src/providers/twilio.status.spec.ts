import { Channel, Provider } from '@ums/contracts';
import type { StatusQuery } from './provider-adapter';
import { credentialFor, TWILIO_SID } from './test/provider-fixtures';
import { twilioFetchLookup, twilioListPath, twilioListPage, twilioMatch } from './twilio.status';

const credential = credentialFor(
  Provider.Twilio,
  {
    baseUrl: 'http://127.0.0.1:1',
    accountSid: TWILIO_SID,
    from: '+15005550006',
    statusCallbackUrl: 'https://hooks.example.com/twilio',
  },
  'token',
);
const claimedAt = new Date('2026-11-28T10:00:00.250Z');
const query = (providerMessageId: string | null = null): StatusQuery => ({
  messageId: '42',
  recipient: '+4915100000001',
  providerMessageId,
  claimedAt,
});
const json = (status: number, body: unknown) => ({ status, headers: {}, body: JSON.stringify(body) });
const listed = (sid: string, at: string, extra: Record<string, unknown> = {}) => ({
  sid,
  to: '+4915100000001',
  from: '+15005550006',
  direction: 'outbound-api',
  status: 'delivered',
  date_created: at,
  date_updated: at,
  ...extra,
});

describe('Twilio status lookups', () => {
  it('asks the list resource for the recipient from the claim day, 1000 per page', () => {
    expect(twilioListPath(credential, query())).toBe(
      `/2010-04-01/Accounts/${TWILIO_SID}/Messages.json?To=%2B4915100000001&DateSent%3E=2026-11-28&PageSize=1000`,
    );
    const whatsApp = credentialFor(Provider.Twilio, { ...credential.config }, 'token', {
      channel: Channel.WhatsApp,
    });
    expect(twilioListPath(whatsApp, query())).toContain('To=whatsapp%3A%2B4915100000001');
  });

  it('maps the Message resource: statuses, failure codes, and a 404 as unknown', () => {
    expect(twilioFetchLookup(query('SM1'), json(200, { sid: 'SM1', status: 'queued' }))).toEqual({
      messageId: '42',
      kind: 'accepted',
      providerMessageId: 'SM1',
      status: 'sent',
    });
    expect(
      twilioFetchLookup(query('SM1'), json(200, { sid: 'SM1', status: 'undelivered', error_code: 30003 })),
    ).toMatchObject({ kind: 'accepted', status: 'failed', errorCode: '30003' });
    expect(twilioFetchLookup(query('SM1'), json(200, { sid: 'SM1', status: 'read' }))).toMatchObject({
      status: 'read',
    });
    expect(twilioFetchLookup(query('SM1'), json(404, { code: 20404 }))).toMatchObject({ kind: 'unknown' });
    expect(twilioFetchLookup(query('SM1'), json(200, { sid: 'SM1', status: 'receiving' }))).toMatchObject({
      kind: 'unknown',
    });
  });

  it('matches an UNKNOWN row to the one send of its sender to its recipient in the claim window', () => {
    const inWindow = listed('SM1', 'Sat, 28 Nov 2026 10:00:00 +0000');
    expect(twilioMatch(credential, query(), [inWindow], 60_000)).toMatchObject({
      kind: 'accepted',
      providerMessageId: 'SM1',
      status: 'delivered',
    });
    const before = listed('SM0', 'Sat, 28 Nov 2026 09:59:59 +0000');
    const after = listed('SM2', 'Sat, 28 Nov 2026 10:01:01 +0000');
    const otherSender = listed('SM3', 'Sat, 28 Nov 2026 10:00:10 +0000', { from: '+15005550007' });
    const otherRecipient = listed('SM4', 'Sat, 28 Nov 2026 10:00:10 +0000', { to: '+4915100000002' });
    const inbound = listed('SM5', 'Sat, 28 Nov 2026 10:00:10 +0000', { direction: 'inbound' });
    expect(
      twilioMatch(credential, query(), [before, after, otherSender, otherRecipient, inbound], 60_000),
    ).toEqual({
      messageId: '42',
      kind: 'not-received',
    });
    expect(
      twilioMatch(credential, query(), [inWindow, listed('SM6', 'Sat, 28 Nov 2026 10:00:30 +0000')], 60_000),
    ).toMatchObject({ kind: 'unknown' });
  });

  it('reads a list page and its next page', () => {
    expect(twilioListPage(json(200, { messages: [{ sid: 'SM1' }, 'x'], next_page_uri: '/next' }))).toEqual({
      messages: [{ sid: 'SM1' }],
      next: '/next',
    });
    expect(twilioListPage(json(200, { messages: [], next_page_uri: null }))).toEqual({
      messages: [],
      next: null,
    });
    expect(typeof twilioListPage(json(401, { code: 20003 }))).toBe('string');
  });
});
