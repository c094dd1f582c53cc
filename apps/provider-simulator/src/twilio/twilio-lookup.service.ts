import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CredentialsService } from '../credentials/credentials.service';
import type { SimulatedCredential } from '../credentials/simulated-credential';
import { type MessageRecord, MessageRecords } from '../records/message-records.service';
import { basicCredentials, headerValue, isRecord, secretMatches } from '../sending/auth-headers';
import { sendAnswer } from '../sending/provider-answer';
import { twilioDate, TwilioAnswers } from './twilio-responses';

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 1000;

const STATUS: Readonly<Record<MessageRecord['status'], string>> = {
  sent: 'sent',
  delivered: 'delivered',
  read: 'read',
  failed: 'undelivered',
};

/**
 * Twilio's Message resource (GET .../Messages/{Sid}.json) and list resource (GET .../Messages.json
 * with To, From, DateSent, DateSent<, DateSent> and paging), read from the sends the simulator
 * accepted on the account's credentials. Read-only: never counted as sends, never throttled.
 */
@Injectable()
export class TwilioLookupService {
  constructor(
    private readonly credentials: CredentialsService,
    private readonly records: MessageRecords,
  ) {}

  fetch(accountSid: string, sid: string, request: FastifyRequest, reply: FastifyReply): void {
    const account = this.authorized(accountSid, request);
    if (account === undefined) return sendAnswer(reply, TwilioAnswers.authenticate());
    const record = this.records.byProviderId(
      account.map((c) => c.id),
      sid,
    );
    if (record === undefined) {
      return sendAnswer(
        reply,
        TwilioAnswers.notFound(`/2010-04-01/Accounts/${accountSid}/Messages/${sid}.json`),
      );
    }
    return sendAnswer(reply, { status: 200, body: messageResource(accountSid, record) });
  }

  list(accountSid: string, request: FastifyRequest, reply: FastifyReply): void {
    const account = this.authorized(accountSid, request);
    if (account === undefined) return sendAnswer(reply, TwilioAnswers.authenticate());
    const query = isRecord(request.query) ? (request.query as Record<string, unknown>) : {};
    const to = text(query['To']);
    const from = text(query['From']);
    const pageSize = Math.min(
      Math.max(Number(text(query['PageSize']) ?? DEFAULT_PAGE_SIZE), 1),
      MAX_PAGE_SIZE,
    );
    const page = Math.max(Number(text(query['Page']) ?? 0), 0);
    if (!Number.isInteger(pageSize) || !Number.isInteger(page)) {
      return sendAnswer(reply, TwilioAnswers.invalidParameter('PageSize and Page must be integers'));
    }
    const window = sentWindow(query);
    if (typeof window === 'string') return sendAnswer(reply, TwilioAnswers.invalidParameter(window));
    const ids = account.map((c) => c.id);
    const all = (to === undefined ? [] : this.records.byRecipient(ids, to))
      .filter(
        (r) =>
          (from === undefined || r.from === from) &&
          r.createdAt >= window.after &&
          r.createdAt < window.before,
      )
      // Newest first, as Twilio lists them.
      .reverse();
    const start = page * pageSize;
    const messages = all.slice(start, start + pageSize).map((r) => messageResource(accountSid, r));
    const uri = (p: number): string => {
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(query)) {
        if (!['Page', 'PageToken'].includes(key) && typeof value === 'string') params.set(key, value);
      }
      params.set('PageSize', String(pageSize));
      params.set('Page', String(p));
      if (p > 0) params.set('PageToken', `PASM${p}`);
      return `/2010-04-01/Accounts/${accountSid}/Messages.json?${params.toString()}`;
    };
    return sendAnswer(reply, {
      status: 200,
      body: {
        end: start + Math.max(messages.length - 1, 0),
        first_page_uri: uri(0),
        messages,
        next_page_uri: start + pageSize < all.length ? uri(page + 1) : null,
        page,
        page_size: pageSize,
        previous_page_uri: page > 0 ? uri(page - 1) : null,
        start,
        uri: uri(page),
      },
    });
  }

  /** The account's credentials when the Basic auth names the account and one of its tokens. */
  private authorized(
    accountSid: string,
    request: FastifyRequest,
  ): readonly SimulatedCredential[] | undefined {
    const account = this.credentials.twilioAccount(accountSid);
    const auth = basicCredentials(headerValue(request.headers.authorization));
    if (account.length === 0 || auth === undefined || auth.user !== accountSid) return undefined;
    return account.some((c) => secretMatches(c.secret, auth.password)) ? account : undefined;
  }
}

/** The Message resource of an accepted send, as Twilio shows it after sending. */
function messageResource(accountSid: string, r: MessageRecord): Record<string, unknown> {
  const uri = `/2010-04-01/Accounts/${accountSid}/Messages/${r.providerMessageId}`;
  const failed = r.status === 'failed';
  return {
    account_sid: accountSid,
    api_version: '2010-04-01',
    body: r.body ?? '',
    date_created: twilioDate(new Date(r.createdAt)),
    date_sent: twilioDate(new Date(r.createdAt)),
    date_updated: twilioDate(new Date(r.updatedAt)),
    direction: 'outbound-api',
    error_code: failed ? 30003 : null,
    error_message: failed ? 'Unreachable destination handset' : null,
    from: r.from ?? null,
    messaging_service_sid: r.from?.startsWith('MG') === true ? r.from : null,
    num_media: '0',
    num_segments: '1',
    price: null,
    price_unit: 'USD',
    sid: r.providerMessageId,
    status: STATUS[r.status],
    subresource_uris: { media: `${uri}/Media.json` },
    to: r.to,
    uri: `${uri}.json`,
  };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** DateSent (that UTC day), DateSent> (on or after), DateSent< (before): YYYY-MM-DD or ISO 8601. */
function sentWindow(query: Record<string, unknown>): { after: number; before: number } | string {
  const parse = (key: string): number | undefined | string => {
    const value = text(query[key]);
    if (value === undefined) return undefined;
    const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
    return Number.isNaN(ms) ? `${key} must be a date (YYYY-MM-DD)` : ms;
  };
  const on = parse('DateSent');
  const after = parse('DateSent>');
  const before = parse('DateSent<');
  for (const v of [on, after, before]) if (typeof v === 'string') return v;
  const day = 86_400_000;
  return {
    after: Math.max((on as number | undefined) ?? 0, (after as number | undefined) ?? 0),
    before: Math.min(
      on === undefined ? Number.MAX_SAFE_INTEGER : (on as number) + day,
      (before as number | undefined) ?? Number.MAX_SAFE_INTEGER,
    ),
  };
}
