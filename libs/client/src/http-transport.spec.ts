import { CampaignApiClient } from './campaign-api.client';
import { UmsApiError, UmsNetworkError } from './client.errors';
import type { ClientOptions, FetchLike } from './client.options';
import { DispatcherApiClient } from './dispatcher-api.client';

interface Sent {
  readonly url: string;
  readonly init: RequestInit;
  readonly headers: Record<string, string>;
}

const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const PAGE = { items: [] };

/** A campaign client whose fetch answers with `answer` and records each request. */
function client(
  answer: (sent: Sent) => Response | Promise<Response>,
  options: Partial<ClientOptions> = {},
): { api: CampaignApiClient; sent: Sent[] } {
  const sent: Sent[] = [];
  const fetchFn: FetchLike = async (url, init) => {
    const call = { url, init, headers: Object.fromEntries(new Headers(init.headers).entries()) };
    sent.push(call);
    return answer(call);
  };
  return { api: new CampaignApiClient({ baseUrl: 'http://api.test/', fetch: fetchFn, ...options }), sent };
}

async function refusal(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => {
      throw new Error('the call succeeded');
    },
    (error: unknown) => error,
  );
}

describe('the typed client over HTTP', () => {
  it('sends the key as a bearer token, the tenant as X-Ums-Tenant, and neither when not given', async () => {
    const keyed = client(() => json(200, PAGE), { apiKey: 'umso_operator', tenant: 'acme' });
    await keyed.api.campaigns.list();
    expect(keyed.sent[0]?.headers).toMatchObject({
      authorization: 'Bearer umso_operator',
      'x-ums-tenant': 'acme',
      accept: 'application/json',
    });
    const anonymous = client(() => json(200, PAGE));
    await anonymous.api.campaigns.list();
    expect(Object.keys(anonymous.sent[0]?.headers ?? {})).not.toContain('authorization');
    expect(Object.keys(anonymous.sent[0]?.headers ?? {})).not.toContain('x-ums-tenant');
  });

  it('sends Idempotency-Key on a create only when one is given, with the JSON body', async () => {
    const body = { name: 'billing', scopes: ['campaigns:read' as const] };
    const { api, sent } = client(() => json(201, { id: 'key_1' }));
    await api.apiKeys.create(body, { idempotencyKey: 'retry-7' });
    await api.apiKeys.create(body);
    expect(sent.map((s) => s.headers['idempotency-key'])).toEqual(['retry-7', undefined]);
    expect(sent.map((s) => [s.init.method, s.headers['content-type'], s.init.body])).toEqual([
      ['POST', 'application/json', JSON.stringify(body)],
      ['POST', 'application/json', JSON.stringify(body)],
    ]);
  });

  it('writes the query as a form does, leaving out what is not set, and encodes path parameters', async () => {
    const { api, sent } = client(() => json(200, PAGE));
    await api.audit.list({ action: 'POST /v1/campaigns', since: '2026-01-01T00:00:00Z', before: undefined });
    await api.messages.list('cmp 1', '7', { state: ['FAILED', 'UNKNOWN'] });
    await api.optOuts.add('sms', '+49 151/1', { defaultCountry: 'DE' });
    expect(sent.map((s) => `${s.init.method} ${s.url}`)).toEqual([
      'GET http://api.test/v1/audit-events?action=POST+%2Fv1%2Fcampaigns&since=2026-01-01T00%3A00%3A00Z',
      'GET http://api.test/v1/campaigns/cmp%201/runs/7/messages?state=FAILED&state=UNKNOWN',
      'PUT http://api.test/v1/opt-outs/sms/%2B49%20151%2F1?defaultCountry=DE',
    ]);
  });

  it("throws a refusal as UmsApiError with the service's code, message, fields and details", async () => {
    const error = {
      code: 'VALIDATION_FAILED',
      message: 'name must be shorter',
      fields: [{ field: 'name', reason: 'too long' }],
      details: { max: 200 },
    };
    const { api } = client(() => json(400, { error }));
    const thrown = await refusal(api.campaigns.get('cmp_1'));
    expect(thrown).toBeInstanceOf(UmsApiError);
    expect(thrown).toMatchObject({ status: 400, ...error });
    expect(thrown).not.toBeInstanceOf(UmsNetworkError);
  });

  it('names an answer that is not a UMS error by its status, and a 2xx that is not JSON BAD_RESPONSE', async () => {
    const proxy = client(() => new Response('<html>bad gateway</html>', { status: 502 }));
    expect(await refusal(proxy.api.campaigns.list())).toMatchObject({
      status: 502,
      code: 'HTTP_502',
      message: '<html>bad gateway</html>',
      fields: [],
      details: undefined,
    });
    const garbled = client(() => new Response('<html>ok</html>', { status: 200 }));
    expect(await refusal(garbled.api.campaigns.get('cmp_1'))).toMatchObject({
      status: 200,
      code: 'BAD_RESPONSE',
      message: 'GET /v1/campaigns/cmp_1 answered 200 with a body that is not JSON',
    });
  });

  it('throws a failure to connect as UmsNetworkError with the socket code, never as an API error', async () => {
    const cause = Object.assign(new Error('connect'), { code: 'ECONNREFUSED' });
    const { api } = client(() => {
      throw new TypeError('fetch failed', { cause });
    });
    const thrown = await refusal(api.credentials.list());
    expect(thrown).toBeInstanceOf(UmsNetworkError);
    expect(thrown).not.toBeInstanceOf(UmsApiError);
    expect(thrown).toMatchObject({
      code: 'ECONNREFUSED',
      service: 'the campaign API',
      baseUrl: 'http://api.test',
      message: 'cannot connect to the campaign API at http://api.test (ECONNREFUSED)',
    });
    expect((thrown as Error).cause).toBeInstanceOf(TypeError);
  });

  it('cuts a JSON call after timeoutMs (TIMEOUT), but not an upload', async () => {
    const untilAborted = (sent: Sent): Promise<Response> =>
      new Promise((_resolve, reject) => {
        const signal = sent.init.signal as AbortSignal;
        signal.addEventListener('abort', () => reject(signal.reason as Error));
      });
    const slow = client(untilAborted, { timeoutMs: 20 });
    expect(await refusal(slow.api.runs.get('cmp_1', '7'))).toMatchObject({
      name: 'UmsNetworkError',
      code: 'TIMEOUT',
      timeoutMs: 20,
      message: 'the campaign API at http://api.test did not answer within 20 ms',
    });

    const upload = client(
      async (sent) => {
        await new Promise((resolve) => setTimeout(resolve, 60));
        const text = await new Response(sent.init.body).text();
        return json(201, { aborted: sent.init.signal?.aborted, text });
      },
      { timeoutMs: 20 },
    );
    async function* chunks(): AsyncGenerator<Uint8Array> {
      yield new TextEncoder().encode('phone\n');
      yield new TextEncoder().encode('+4915112345678\n');
    }
    const answer = (await upload.api.audience.uploadCsv('cmp_1', {
      fileName: 'a"b.csv',
      contentType: 'text/csv',
      content: chunks(),
    })) as unknown as { aborted: boolean; text: string };
    expect(answer.aborted).toBe(false);
    const type = upload.sent[0]?.headers['content-type'] ?? '';
    const boundary = /^multipart\/form-data; boundary=(.+)$/.exec(type)?.[1];
    expect(answer.text).toBe(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a_b.csv"\r\n` +
        `Content-Type: text/csv\r\n\r\nphone\n+4915112345678\n\r\n--${boundary}--\r\n`,
    );
  });

  it('streams a CSV download as it comes', async () => {
    const { api, sent } = client(
      () =>
        new Response('channel,address\nsms,+4915112345678\n', { headers: { 'content-type': 'text/csv' } }),
    );
    const stream = await api.optOuts.exportCsv({ channel: 'sms' });
    expect(await new Response(stream).text()).toBe('channel,address\nsms,+4915112345678\n');
    expect(sent[0]?.headers['accept']).toBe('text/csv');
  });

  it('answers undefined for a 204', async () => {
    const sent: string[] = [];
    const dispatcher = new DispatcherApiClient({
      baseUrl: 'http://dispatcher.test',
      fetch: (url, init) => {
        sent.push(`${init.method} ${url}`);
        return Promise.resolve(new Response(null, { status: 204 }));
      },
    });
    await expect(dispatcher.subscribers.delete('sub_1')).resolves.toBeUndefined();
    expect(sent).toEqual(['DELETE http://dispatcher.test/v1/subscribers/sub_1']);
  });
});
