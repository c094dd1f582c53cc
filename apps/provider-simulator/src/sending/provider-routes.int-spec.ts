import { type ServiceProcess, startServiceProcess, waitUntil } from '@ums/testing';
import { call } from '../test/simulator-http';

jest.setTimeout(120_000);

type Body = Record<string, unknown>;
interface MetaError {
  error: {
    message: string;
    type: string;
    code: number;
    error_subcode?: number;
    error_data?: { details: string };
    fbtrace_id: string;
  };
}
interface TwilioError {
  code: number;
  message: string;
  more_info: string;
  status: number;
}

const basic = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const SIGV4 = (accessKeyId: string, region = 'eu-west-1'): string =>
  `AWS4-HMAC-SHA256 Credential=${accessKeyId}/20250101/${region}/ses/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc`;

/** Every provider route of the real simulator process: success and error shapes, auth, failures, counts. */
describe('provider routes (simulator process)', () => {
  let sim: ServiceProcess;
  const put = (id: string, settings: Body): Promise<unknown> =>
    call(`${sim.url}/_sim/credentials/${id}`, { method: 'PUT', body: settings }).then((a) => {
      if (a.status !== 201 && a.status !== 200) throw new Error(`PUT ${id}: ${a.status} ${a.text}`);
    });
  const stats = async (id: string): Promise<Record<string, number | unknown>> =>
    (await call(`${sim.url}/_sim/stats?credentialId=${id}`)).body;

  beforeAll(async () => {
    sim = await startServiceProcess({
      app: 'provider-simulator',
      env: {
        SIMULATOR_TIMEOUT_HOLD_MS: '1500',
        SIMULATOR_CREDENTIALS: JSON.stringify([
          {
            credentialId: 'env-native',
            provider: 'simulator',
            capacityTps: 7,
            latency: { p50Ms: 1, p99Ms: 5 },
          },
        ]),
      },
    });
  });

  afterAll(async () => {
    await sim?.process.stop();
  });

  describe('WhatsApp Cloud API', () => {
    const send = (phoneNumberId: string, body: Body, token = 'wa-token') =>
      call<Body & MetaError>(`${sim.url}/v21.0/${phoneNumberId}/messages`, {
        body,
        headers: { authorization: `Bearer ${token}` },
      });
    const text = (to: string, id?: string): Body => ({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to,
      type: 'text',
      text: { body: 'Hello' },
      ...(id !== undefined ? { biz_opaque_callback_data: id } : {}),
    });

    beforeAll(async () => {
      await put('wa-1', {
        provider: 'whatsapp-cloud',
        account: { phoneNumberId: '1001' },
        secret: 'wa-token',
        permanentFailures: ['4915100000009'],
        callbacks: { enabled: false },
      });
    });

    it('accepts a text message with contacts and a wamid', async () => {
      const answer = await send('1001', text('4915100000001', '9001'));
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        messaging_product: 'whatsapp',
        contacts: [{ input: '4915100000001', wa_id: '4915100000001' }],
        messages: [{ id: expect.stringMatching(/^wamid\./) as string }],
      });
    });

    it('accepts a template message with message_status accepted', async () => {
      const answer = await send('1001', {
        messaging_product: 'whatsapp',
        to: '4915100000002',
        type: 'template',
        template: { name: 'promo', language: { code: 'en' }, components: [] },
        biz_opaque_callback_data: '9002',
      });
      expect(answer.status).toBe(200);
      expect((answer.body['messages'] as Body[])[0]).toEqual({
        id: expect.stringMatching(/^wamid\./) as string,
        message_status: 'accepted',
      });
    });

    it('refuses a bad token with 401 code 190, an unknown phone number id with code 100', async () => {
      const denied = await send('1001', text('4915100000003'), 'wrong');
      expect(denied.status).toBe(401);
      expect(denied.body.error).toMatchObject({ code: 190, type: 'OAuthException' });
      expect(typeof denied.body.error.fbtrace_id).toBe('string');
      const missing = await call<MetaError>(`${sim.url}/v21.0/1001/messages`, {
        body: text('4915100000003'),
      });
      expect(missing.status).toBe(401);
      const unknown = await send('999999', text('4915100000003'));
      expect(unknown.status).toBe(400);
      expect(unknown.body.error).toMatchObject({
        code: 100,
        error_subcode: 33,
        type: 'GraphMethodException',
      });
      expect((await stats('wa-1'))['authFailures']).toBe(2);
    });

    it('refuses an invalid parameter with code 100 and details', async () => {
      const answer = await send('1001', { messaging_product: 'whatsapp', type: 'text', text: { body: 'x' } });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({
        code: 100,
        message: '(#100) Invalid parameter',
        error_data: { messaging_product: 'whatsapp', details: 'The parameter to is required.' },
      });
    });

    it('answers a permanent failure with code 131026', async () => {
      const answer = await send('1001', text('4915100000009', '9009'));
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 131026, message: '(#131026) Message Undeliverable.' });
      expect((await stats('wa-1'))['rejectedPermanent']).toBe(1);
    });

    it('answers 5xx and throttling in Meta shapes (throttling is HTTP 400 with code 130429)', async () => {
      await put('wa-err', {
        provider: 'whatsapp-cloud',
        account: { phoneNumberId: '1002' },
        error5xxRate: 1,
      });
      const failed = await send('1002', text('4915100000004'));
      expect(failed.status).toBe(500);
      expect(failed.body.error).toMatchObject({ code: 131000 });
      await put('wa-429', { provider: 'whatsapp-cloud', account: { phoneNumberId: '1003' }, rate429: 1 });
      const throttled = await send('1003', text('4915100000004'));
      expect(throttled.status).toBe(400);
      expect(throttled.body.error).toMatchObject({
        code: 130429,
        message: '(#130429) Rate limit hit',
        error_data: { details: 'Cloud API message throughput has been reached.' },
      });
      expect(await stats('wa-err')).toMatchObject({ errors5xx: 1, accepted: 0 });
      expect(await stats('wa-429')).toMatchObject({ throttled: 1, accepted: 0 });
    });

    it('counts every accepted send per message id and reports duplicates', async () => {
      await put('wa-dup', {
        provider: 'whatsapp-cloud',
        account: { phoneNumberId: '1004' },
        callbacks: { enabled: false },
      });
      for (const id of ['d1', 'd2', 'd1', 'd3', 'd1']) {
        expect((await send('1004', text('4915100000005', id))).status).toBe(200);
      }
      expect(await stats('wa-dup')).toMatchObject({
        accepted: 5,
        distinctMessages: 3,
        duplicates: 1,
        duplicateIds: ['d1'],
      });
      expect((await call(`${sim.url}/_sim/sends/d1`)).body).toEqual({
        messageId: 'd1',
        accepted: 3,
        attempts: 3,
        credentials: [{ credentialId: 'wa-dup', accepted: 3, attempts: 3 }],
      });
      expect((await call(`${sim.url}/_sim/sends/never-sent`)).body).toMatchObject({
        accepted: 0,
        attempts: 0,
      });
    });
  });

  describe('Twilio Messages API', () => {
    const sid = 'AC00000000000000000000000000000001';
    const form = (fields: Record<string, string>): string => new URLSearchParams(fields).toString();
    const send = (fields: Record<string, string>, password = 'tw-token') =>
      call<Body & TwilioError>(`${sim.url}/2010-04-01/Accounts/${sid}/Messages.json`, {
        body: form(fields),
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(sid, password) },
      });

    beforeAll(async () => {
      await put('tw-1', {
        provider: 'twilio',
        account: { accountSid: sid },
        secret: 'tw-token',
        permanentFailures: ['+15005550001'],
        callbacks: { enabled: false },
      });
    });

    it('creates a message: 201 with the Message resource, counted by ums_message_id', async () => {
      const answer = await send({
        To: '+4915100000001',
        From: '+15017122661',
        Body: 'Hello',
        StatusCallback: 'http://127.0.0.1:1/twilio?ums_message_id=7001',
      });
      expect(answer.status).toBe(201);
      expect(answer.body).toMatchObject({
        account_sid: sid,
        api_version: '2010-04-01',
        body: 'Hello',
        direction: 'outbound-api',
        from: '+15017122661',
        to: '+4915100000001',
        status: 'queued',
        error_code: null,
        sid: expect.stringMatching(/^SM[0-9a-f]{32}$/) as string,
      });
      expect(answer.body['uri']).toBe(
        `/2010-04-01/Accounts/${sid}/Messages/${String(answer.body['sid'])}.json`,
      );
      expect((await call(`${sim.url}/_sim/sends/7001`)).body).toMatchObject({ accepted: 1 });
    });

    it('refuses wrong basic auth with 20003 and a missing To with 21604', async () => {
      const denied = await send({ To: '+4915100000001', From: '+1', Body: 'x' }, 'nope');
      expect(denied.status).toBe(401);
      expect(denied.body).toEqual({
        code: 20003,
        message: 'Authenticate',
        more_info: 'https://www.twilio.com/docs/errors/20003',
        status: 401,
      });
      const invalid = await send({ From: '+1', Body: 'x' });
      expect(invalid.status).toBe(400);
      expect(invalid.body).toMatchObject({ code: 21604, status: 400 });
    });

    it('answers a permanent failure with 21211 and congestion with 429 code 20429', async () => {
      const permanent = await send({ To: '+15005550001', From: '+1', Body: 'x' });
      expect(permanent.status).toBe(400);
      expect(permanent.body).toMatchObject({ code: 21211, status: 400 });
      await call(`${sim.url}/_sim/credentials/tw-1`, { method: 'PATCH', body: { capacityTps: 0 } });
      const throttled = await send({ To: '+4915100000002', From: '+1', Body: 'x' });
      expect(throttled.status).toBe(429);
      expect(throttled.body).toMatchObject({ code: 20429, message: 'Too Many Requests', status: 429 });
      await call(`${sim.url}/_sim/credentials/tw-1`, { method: 'PATCH', body: { capacityTps: 1000 } });
    });
  });

  describe('SES v2 SendEmail', () => {
    const email = (to: string, id: string, from = 'news@example.com'): Body => ({
      FromEmailAddress: from,
      Destination: { ToAddresses: [to] },
      Content: { Simple: { Subject: { Data: 'Hi' }, Body: { Text: { Data: 'Hello' } } } },
      EmailTags: [{ Name: 'ums_message_id', Value: id }],
    });
    const send = (body: Body, authorization?: string) =>
      call<Body>(`${sim.url}/v2/email/outbound-emails`, {
        body,
        headers: authorization !== undefined ? { authorization } : {},
      });

    beforeAll(async () => {
      await put('ses-1', {
        provider: 'ses',
        account: { from: 'news@example.com', region: 'eu-west-1' },
        secret: 'AKIDSIM:secret',
        permanentFailures: ['bounce@example.com'],
        // SES reports through SNS: even with a callback URL the simulator posts nothing.
        callbackUrl: 'http://127.0.0.1:1/ses',
      });
    });

    it('sends: 200 with a MessageId, counted by the ums_message_id tag', async () => {
      const answer = await send(email('a@example.com', '8001'), SIGV4('AKIDSIM'));
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ MessageId: expect.any(String) as string });
      expect(answer.headers.get('x-amzn-requestid')).toBeTruthy();
      expect((await call(`${sim.url}/_sim/sends/8001`)).body).toMatchObject({ accepted: 1 });
      expect((await stats('ses-1'))['callbacks']).toMatchObject({ scheduled: 0 });
    });

    it('refuses a missing signature (403), a foreign access key (403) and an unverified sender (400)', async () => {
      const missing = await send(email('a@example.com', '8002'));
      expect(missing.status).toBe(403);
      expect(missing.headers.get('x-amzn-errortype')).toBe('MissingAuthenticationTokenException');
      expect(missing.body).toEqual({
        __type: 'MissingAuthenticationTokenException',
        message: 'Missing Authentication Token',
      });
      const foreign = await send(email('a@example.com', '8002'), SIGV4('AKIDOTHER'));
      expect(foreign.status).toBe(403);
      expect(foreign.body['__type']).toBe('UnrecognizedClientException');
      const unverified = await send(email('a@example.com', '8002', 'other@example.com'), SIGV4('AKIDSIM'));
      expect(unverified.status).toBe(400);
      expect(unverified.headers.get('x-amzn-errortype')).toBe('MessageRejected');
    });

    it('rejects a permanently failing address, and throttles with 429 TooManyRequestsException', async () => {
      const rejected = await send(email('bounce@example.com', '8003'), SIGV4('AKIDSIM'));
      expect(rejected.status).toBe(400);
      expect(rejected.body).toEqual({ __type: 'MessageRejected', message: 'Address blacklisted.' });
      await call(`${sim.url}/_sim/credentials/ses-1`, { method: 'PATCH', body: { capacityTps: 0 } });
      const throttled = await send(email('a@example.com', '8004'), SIGV4('AKIDSIM'));
      expect(throttled.status).toBe(429);
      expect(throttled.headers.get('x-amzn-errortype')).toBe('TooManyRequestsException');
      const bad = await send({ FromEmailAddress: 'news@example.com' }, SIGV4('AKIDSIM'));
      expect(bad.status).toBe(400);
      expect(bad.body['__type']).toBe('BadRequestException');
    });
  });

  describe('Mitto SMS', () => {
    const post = (path: string, body: Body, key = 'mitto-key') =>
      call<Body>(`${sim.url}${path}`, { body, headers: { 'x-mitto-api-key': key } });
    const sms = (to: string, reference: string, from = 'ACME'): Body => ({ from, to, text: 'Hi', reference });

    beforeAll(async () => {
      await put('mitto-1', {
        provider: 'mitto',
        account: { from: 'ACME' },
        secret: 'mitto-key',
        permanentFailures: ['+4915100000001'],
        callbacks: { enabled: false },
      });
    });

    it('answers POST /sms with responseCode 0 and the id, or the refusal code', async () => {
      const sent = await post('/sms', sms('4915100000000', 'mi0'));
      expect([sent.status, sent.body]).toEqual([
        200,
        {
          id: expect.stringMatching(/^[0-9a-f]{32}$/) as string,
          timestamp: expect.any(String) as string,
          to: '4915100000000',
          responseCode: 0,
          textLength: 2,
          responseText: 'SMS sent',
        },
      ]);
      const refused = await post('/sms', sms('+4915100000001', 'mi1'));
      expect([refused.status, refused.body]).toEqual([
        400,
        { responseCode: 8, textLength: 0, responseText: 'Invalid receiver' },
      ]);
      expect(await stats('mitto-1')).toMatchObject({ accepted: 1, rejectedPermanent: 1 });
    });

    it('answers POST /smsbulk with one id per receiver, one reference for all', async () => {
      const bulk = await post('/smsbulk', {
        from: 'ACME',
        to: ['4915100000002', '4915100000001'],
        text: 'Hi',
      });
      expect(bulk.status).toBe(200);
      expect(bulk.body).toMatchObject({ responseCode: 0, responseText: 'SMS sent' });
      expect(bulk.body['messages']).toEqual([
        {
          to: '4915100000002',
          id: expect.stringMatching(/^[0-9a-f]{32}$/) as string,
          timestamp: expect.any(String) as string,
        },
        {
          to: '4915100000001',
          responseCode: 8,
          responseText: 'Invalid receiver',
          timestamp: expect.any(String) as string,
        },
      ]);
    });

    it('refuses a wrong API key, an unknown sender, missing fields and the former /sms/bulk', async () => {
      expect((await post('/sms', sms('4915100000000', 'mk'), 'wrong')).status).toBe(401);
      const unknown = await post('/sms', sms('4915100000000', 'mk', 'NOBODY'));
      expect([unknown.status, unknown.body['responseCode']]).toEqual([400, 6]);
      expect((await post('/sms', { from: 'ACME', to: '4915100000000' })).body['responseCode']).toBe(3);
      expect((await post('/sms', { to: '4915100000000', text: 'x' })).body['responseCode']).toBe(5);
      expect((await post('/sms', { from: 'ACME', text: 'x' })).body['responseCode']).toBe(7);
      expect((await post('/sms', sms('not-a-number', 'mk'))).body['responseCode']).toBe(8);
      expect((await post('/sms/bulk', { from: 'ACME', messages: [] })).status).toBe(404);
    });

    it('throttles past capacity with 429 and Retry-After, and answers 5xx as responseCode 1', async () => {
      await put('mitto-cap', {
        provider: 'mitto',
        account: { from: 'CAPPED' },
        capacityTps: 2,
        callbacks: { enabled: false },
      });
      const answers = [];
      for (let i = 0; i < 3; i++)
        answers.push(await post('/sms', sms(`491510000010${i}`, `mc${i}`, 'CAPPED'), 'any'));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
      expect(answers[2]?.headers.get('retry-after')).toBe('1');
      await put('mitto-5xx', { provider: 'mitto', account: { from: 'FIVE' }, error5xxRate: 1 });
      const failed = await post('/sms', sms('4915100000000', 'm5', 'FIVE'), 'any');
      expect([failed.status, failed.body['responseCode']]).toEqual([500, 1]);
    });

    it('looks a message up by reference: its id and status, 404 when never accepted', async () => {
      const sent = await post('/sms', sms('4915100000004', 'look-1'));
      const look = (reference: string, key = 'mitto-key') =>
        fetch(`${sim.url}/sms/status?reference=${reference}`, { headers: { 'x-mitto-api-key': key } });
      const found = await look('look-1');
      expect(found.status).toBe(200);
      expect(await found.json()).toMatchObject({
        reference: 'look-1',
        id: sent.body['id'],
        to: '4915100000004',
        status: 'sent',
        responseCode: 0,
      });
      expect((await look('look-never')).status).toBe(404);
      expect((await look('look-1', '')).status).toBe(401);
    });
  });

  describe('native simulator API', () => {
    const send = (body: Body, token?: string, signal?: AbortSignal) =>
      call<Body>(`${sim.url}/sim/v1/messages`, {
        body,
        headers: token !== undefined ? { authorization: `Bearer ${token}` } : {},
        signal,
      });
    const batch = (credentialId: string, ids: string[], channel = 'sms'): Body => ({
      credentialId,
      messages: ids.map((messageId, i) => ({
        messageId,
        to: `+4915200${String(i).padStart(5, '0')}`,
        channel,
        text: 'Hi',
      })),
    });

    it('answers per message, with the configured permanent failures', async () => {
      await put('native-1', {
        provider: 'simulator',
        secret: 'sim-key',
        permanentFailures: ['+491520000001'],
      });
      const answer = await send(batch('native-1', ['n1', 'n2']), 'sim-key');
      expect(answer.status).toBe(200);
      expect(answer.body['results']).toEqual([
        { messageId: 'n1', status: 'accepted', providerMessageId: expect.stringMatching(/^sim-/) as string },
        { messageId: 'n2', status: 'rejected', code: 'INVALID_NUMBER', retryable: false },
      ]);
      expect((await send(batch('native-1', ['n3']), 'bad')).status).toBe(401);
      const unknown = await send(batch('nobody', ['n3']));
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ error: { code: 'UNKNOWN_CREDENTIAL' } });
    });

    it('throttles with 429 and Retry-After, fails with 503 at the 5xx rate', async () => {
      await put('native-0', { provider: 'simulator', capacityTps: 0 });
      const throttled = await send(batch('native-0', ['z1']));
      expect(throttled.status).toBe(429);
      expect(throttled.headers.get('retry-after')).toBe('1');
      expect(throttled.body).toMatchObject({ error: { code: 'THROTTLED', retryAfterSeconds: 1 } });
      await put('native-5xx', { provider: 'simulator', error5xxRate: 1 });
      const failed = await send(batch('native-5xx', ['z2']));
      expect(failed.status).toBe(503);
      expect(failed.body).toMatchObject({ error: { code: 'TEMPORARY_ERROR' } });
      expect((await call(`${sim.url}/_sim/sends/z1`)).body).toMatchObject({ accepted: 0, attempts: 1 });
    });

    it('holds a timed-out request until the client gives up, or closes it after the hold', async () => {
      await put('native-slow', { provider: 'simulator', timeoutRate: 1 });
      await expect(send(batch('native-slow', ['t1']), undefined, AbortSignal.timeout(300))).rejects.toThrow();
      // No client timeout: the simulator closes the connection after SIMULATOR_TIMEOUT_HOLD_MS without answering.
      await expect(send(batch('native-slow', ['t2']))).rejects.toThrow();
      await waitUntil('both timeouts counted', async () => (await stats('native-slow'))['timeouts'] === 2);
      expect(await stats('native-slow')).toMatchObject({ accepted: 0, timeouts: 2 });
    });

    it('can time out a send it still delivered (the case that leaves UNKNOWN rows)', async () => {
      await put('native-lost', { provider: 'simulator', timeoutRate: 1, timeoutDelivers: true });
      await expect(send(batch('native-lost', ['u1']), undefined, AbortSignal.timeout(300))).rejects.toThrow();
      await waitUntil('timeout counted', async () => (await stats('native-lost'))['timeouts'] === 1);
      expect((await call(`${sim.url}/_sim/sends/u1`)).body).toMatchObject({ accepted: 1 });
    });

    it('takes credentials from SIMULATOR_CREDENTIALS at start-up', async () => {
      const answer = await call(`${sim.url}/_sim/credentials/env-native`);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        provider: 'simulator',
        capacityTps: 7,
        latency: { minMs: 0, p50Ms: 1, p99Ms: 5 },
      });
      const sent = await send(
        batch(
          'env-native',
          Array.from({ length: 10 }, (_, i) => `e${i}`),
        ),
      );
      expect((sent.body['results'] as Body[]).filter((r) => r['status'] === 'accepted')).toHaveLength(7);
    });
  });

  describe('admin API', () => {
    it('validates credentials: unknown fields, missing account ids, inconsistent latency', async () => {
      const unknownField = await call(`${sim.url}/_sim/credentials/bad-1`, {
        method: 'PUT',
        body: { provider: 'simulator', capacity: 5 },
      });
      expect(unknownField.status).toBe(400);
      expect(unknownField.body).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
      const noPhone = await call(`${sim.url}/_sim/credentials/bad-2`, {
        method: 'PUT',
        body: { provider: 'whatsapp-cloud' },
      });
      expect(noPhone.status).toBe(400);
      expect(noPhone.body).toMatchObject({
        error: {
          code: 'INVALID_CREDENTIAL',
          fields: [{ field: 'account.phoneNumberId', reason: 'is required for provider whatsapp-cloud' }],
        },
      });
      const latency = await call(`${sim.url}/_sim/credentials/bad-3`, {
        method: 'PUT',
        body: { provider: 'simulator', latency: { p50Ms: 50, p99Ms: 10 } },
      });
      expect(latency.status).toBe(400);
      const rate = await call(`${sim.url}/_sim/credentials/bad-4`, {
        method: 'PUT',
        body: { provider: 'simulator', rate429: 2 },
      });
      expect(rate.status).toBe(400);
    });

    it('creates (201), replaces (200), hides secrets, merges PATCH, refuses a clashing account (409), deletes', async () => {
      const url = `${sim.url}/_sim/credentials/adm-1`;
      const body = {
        provider: 'whatsapp-cloud',
        account: { phoneNumberId: '5005' },
        secret: 's3cret',
        callbackSecret: 'cb',
      };
      expect((await call(url, { method: 'PUT', body })).status).toBe(201);
      const replaced = await call(url, { method: 'PUT', body });
      expect(replaced.status).toBe(200);
      expect(replaced.body).toMatchObject({ hasSecret: true, hasCallbackSecret: true });
      expect(replaced.text).not.toContain('s3cret');
      const patched = await call(url, {
        method: 'PATCH',
        body: { capacityTps: 80, callbacks: { readRate: 0.5 } },
      });
      expect(patched.body).toMatchObject({
        capacityTps: 80,
        callbacks: { enabled: true, readRate: 0.5, deliveredRate: 1 },
        account: { phoneNumberId: '5005' },
      });
      const clash = await call(`${sim.url}/_sim/credentials/adm-2`, { method: 'PUT', body });
      expect(clash.status).toBe(409);
      expect(clash.body).toMatchObject({ error: { code: 'ACCOUNT_IN_USE' } });
      expect((await call(url, { method: 'DELETE' })).status).toBe(204);
      expect((await call(url)).status).toBe(404);
      const gone = await call<MetaError>(`${sim.url}/v21.0/5005/messages`, {
        body: { messaging_product: 'whatsapp', to: '49', type: 'text', text: { body: 'x' } },
        headers: { authorization: 'Bearer s3cret' },
      });
      expect(gone.body.error.code).toBe(100);
    });

    it('exposes send counters on /metrics', async () => {
      const metrics = await (await fetch(`${sim.managementUrl}/metrics`)).text();
      expect(metrics).toMatch(
        /ums_sim_sends_total\{[^}]*credential_id="wa-dup"[^}]*outcome="accepted"[^}]*\} 5/,
      );
      expect(metrics).toContain('ums_sim_tracked_message_ids');
    });
  });
});
