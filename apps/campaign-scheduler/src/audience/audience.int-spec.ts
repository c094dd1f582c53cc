import { randomBytes } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AllTopics, Scope } from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import { encode } from 'iconv-lite';
import {
  bearer,
  createTenantKey,
  createTestDatabase,
  serviceEnv,
  TEST_OPERATOR_KEY,
  type ServiceProcess,
  startServiceProcess,
  testKafka,
  waitUntil,
} from '@ums/testing';
import type { DataSource } from 'typeorm';

jest.setTimeout(180_000);

interface Summary {
  id: string;
  campaignId: string;
  source: string;
  state: string;
  rowsRead: number;
  rowsAccepted: number;
  rowsRejected: number;
  rowsDuplicate: number;
  error: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  firstRejects: { line: number; reason: string }[];
}
interface ErrorBody {
  error: {
    code: string;
    message: string;
    fields?: { field: string; reason: string }[];
    details?: Record<string, unknown>;
  };
}
interface Answer<T> {
  status: number;
  body: T;
}

const OVERSIZE_LIMIT = 100;
const CHUNK_ROWS = 4;
const STALE_MS = 2_000;

/**
 * The audience API of the real campaign-scheduler (built from dist/) against MariaDB: uploads,
 * inline lists and URL imports, checked against the exact rows stored in contacts and
 * audience_rejects. The main process lands 4 rows per chunk so that duplicates across chunks
 * (found through the database) and within a chunk (found in memory) both occur; a second process
 * has a 100-byte size limit and refuses private URLs.
 */
describe('audience imports (service process)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let service: ServiceProcess;
  let small: ServiceProcess;
  let strict: ServiceProcess;
  let files: Server;
  let filesUrl: string;
  let campaignSeq = 0;
  /** Tenant t1's key (every scope), used by every call unless a test says otherwise; t2's, another tenant's. */
  let keyT1 = '';
  let keyT2 = '';
  const quiet: ServerResponse[] = [];
  const served = new Map<
    string,
    { status: number; body: string; headers?: Record<string, string>; chunked?: boolean }
  >();

  beforeAll(async () => {
    database = await createTestDatabase('ums_audience');
    ds = createDataSource(database.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    await ensureTopics(testKafka(), AllTopics, 1, new KafkaNames(namespace));
    for (const channel of ['sms', 'whatsapp', 'email']) {
      await ds.query(
        `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, rate_ceiling_per_sec, rate_floor_per_sec)
         VALUES (?, 't1', ?, 'simulator', ?, '{}', 100, 1)`,
        [`cred-${channel}`, `sim ${channel}`, channel],
      );
    }
    files = createServer((request, response) => {
      if (request.url === '/endless.csv') {
        // A file that never ends: a header, eight rows, then silence (until the client goes away).
        response.writeHead(200, { 'content-type': 'text/csv' });
        response.write(
          `phone\n${Array.from({ length: 8 }, (_, i) => `+4915190000${String(i).padStart(3, '0')}\n`).join('')}`,
        );
        return;
      }
      if (request.url === '/quiet.csv') {
        // A header and three rows, then silence until the test ends the response.
        response.writeHead(200, { 'content-type': 'text/csv' });
        response.write('phone\n+4915180000001\n+4915180000002\n+4915180000003\n');
        quiet.push(response);
        return;
      }
      const file = served.get(request.url ?? '');
      response.writeHead(file?.status ?? 404, { 'content-type': 'text/csv', ...file?.headers });
      if (file?.chunked === true) {
        // No Content-Length: the size is only known while the body streams.
        for (const line of file.body.split(/(?<=\n)/)) response.write(line);
        response.end();
      } else {
        response.end(file?.body ?? 'not here');
      }
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    // Every replica uses the same staleness, as in production: a short one, so abandoned imports are seen.
    const env = {
      ...serviceEnv(database.settings.database, namespace),
      AUDIENCE_IMPORT_STALE_MS: String(STALE_MS),
    };
    [service, small, strict] = await Promise.all([
      startServiceProcess({
        app: 'campaign-scheduler',
        instance: 'audience',
        env: { ...env, AUDIENCE_INSERT_CHUNK_ROWS: String(CHUNK_ROWS), AUDIENCE_URL_ALLOW_PRIVATE: 'true' },
      }),
      startServiceProcess({
        app: 'campaign-scheduler',
        instance: 'audience-small',
        env: { ...env, AUDIENCE_MAX_BYTES: String(OVERSIZE_LIMIT), AUDIENCE_URL_ALLOW_PRIVATE: 'true' },
      }),
      startServiceProcess({
        app: 'campaign-scheduler',
        instance: 'audience-strict',
        env: { ...env, AUDIENCE_URL_ALLOW_PRIVATE: 'false', AUDIENCE_URL_TIMEOUT_MS: '5000' },
      }),
    ]);
    // Keys live in the shared database: each process accepts them.
    [keyT1, keyT2] = await Promise.all([
      createTenantKey(service.url, 't1'),
      createTenantKey(service.url, 't2'),
    ]);
  });

  afterAll(async () => {
    await Promise.all([service?.process.stop(), small?.process.stop(), strict?.process.stop()]);
    files?.closeAllConnections();
    await new Promise((resolve) => (files ? files.close(resolve) : resolve(undefined)));
    if (ds?.isInitialized) await ds.destroy();
    await database?.drop();
  });

  async function createCampaign(
    options: { channel?: string; template?: object; defaultCountry?: string | null; state?: string } = {},
  ): Promise<string> {
    const id = `camp-${++campaignSeq}-${randomBytes(3).toString('hex')}`;
    const channel = options.channel ?? 'sms';
    await ds.query(
      `INSERT INTO campaigns (id, tenant_id, name, channel, credential_id, template, default_country, schedule_kind, state)
       VALUES (?, 't1', ?, ?, ?, ?, ?, 'now', ?)`,
      [
        id,
        `audience ${id}`,
        channel,
        `cred-${channel}`,
        JSON.stringify(options.template ?? { text: 'Hi {{first_name}}' }),
        options.defaultCountry === undefined ? 'DE' : options.defaultCountry,
        options.state ?? 'DRAFT',
      ],
    );
    return id;
  }

  async function call<T>(
    path: string,
    init: {
      method?: string;
      json?: unknown;
      body?: FormData | string;
      headers?: Record<string, string>;
      /** The bearer token: tenant t1's key unless given (null: none). */
      key?: string | null;
    } = {},
    base = service.url,
  ): Promise<Answer<T>> {
    const key = init.key === undefined ? keyT1 : init.key;
    const response = await fetch(`${base}${path}`, {
      method: init.method ?? (init.json !== undefined || init.body !== undefined ? 'POST' : 'GET'),
      headers: {
        ...(init.json !== undefined ? { 'content-type': 'application/json' } : init.headers),
        ...(key === null ? {} : bearer(key)),
      },
      body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
    });
    return { status: response.status, body: (await response.json()) as T };
  }

  function form(csv: string | Uint8Array, field = 'file'): FormData {
    const data = new FormData();
    data.append(field, new Blob([csv], { type: 'text/csv' }), 'audience.csv');
    return data;
  }

  const upload = <T = Summary>(
    campaignId: string,
    csv: string | Uint8Array,
    base = service.url,
    key?: string | null,
  ): Promise<Answer<T>> =>
    call<T>(`/v1/campaigns/${campaignId}/audience/csv`, { body: form(csv), key }, base);

  async function contactsOf(campaignId: string): Promise<[string, Record<string, string> | null, number][]> {
    const rows = (await ds.query(
      'SELECT address, variables, line_no FROM contacts WHERE campaign_id = ? ORDER BY id',
      [campaignId],
    )) as { address: string; variables: unknown; line_no: string | number }[];
    return rows.map((row) => [
      row.address,
      (typeof row.variables === 'string' ? JSON.parse(row.variables) : row.variables) as Record<
        string,
        string
      > | null,
      Number(row.line_no),
    ]);
  }

  async function rejectsOf(importId: string): Promise<[number, string][]> {
    const rows = (await ds.query(
      'SELECT line_no, reason FROM audience_rejects WHERE import_id = ? ORDER BY line_no',
      [importId],
    )) as { line_no: string | number; reason: string }[];
    return rows.map((row) => [Number(row.line_no), row.reason]);
  }

  async function importsOf(
    campaignId: string,
  ): Promise<{ id: string; state: string; error: string | null }[]> {
    const rows = (await ds.query(
      'SELECT id, state, error FROM audience_imports WHERE campaign_id = ? ORDER BY id',
      [campaignId],
    )) as { id: string | number; state: string; error: string | null }[];
    return rows.map((row) => ({ id: String(row.id), state: row.state, error: row.error }));
  }

  async function settled(campaignId: string, importId: string, base = service.url): Promise<Summary> {
    return waitUntil(`import ${importId} to finish`, async () => {
      const answer = await call<Summary>(
        `/v1/campaigns/${campaignId}/audience/imports/${importId}`,
        {},
        base,
      );
      return answer.body.state === 'COMPLETED' || answer.body.state === 'FAILED' ? answer.body : undefined;
    });
  }

  it('imports a CSV with BOM, CRLF, quoted fields, blank lines, duplicates and bad rows, line by line', async () => {
    const campaignId = await createCampaign();
    const csv =
      '\ufeffphone,first_name,city\r\n' + // 1 header
      '+49 151 11111111,Anna,"Berlin, Mitte"\r\n' + // 2
      '\r\n' + // 3 blank
      '0151 22222222,"Bob ""the builder""",Hamburg\r\n' + // 4
      '+4915133333333,"Multi\r\nLine",Köln\r\n' + // 5-6
      '0151 1234567,Carl,München\r\n' + // 7 too short for a DE mobile
      '0049 151 11111111,Anna again,Berlin\r\n' + // 8 duplicate of line 2, in a later chunk
      ',,\r\n' + // 9 blank
      '+4915144444444,,Bonn\r\n' + // 10 template variable empty
      '+4915155555555,Eve\r\n' + // 11 too few cells
      'CALL ME,Fred,Essen\r\n' + // 12 letters
      '(0151) 6666-6666,Gina,Ulm\r\n' + // 13
      '+49 151 66666666,Gina again,Ulm,extra\r\n' + // 14 too many cells
      '+49 151 66666666 ,Gina twice,Ulm'; // 15 duplicate of line 13 in the same chunk, no final newline

    const { status, body } = await upload(campaignId, csv);

    expect(status).toBe(201);
    expect(body).toMatchObject({
      campaignId,
      source: 'csv',
      state: 'COMPLETED',
      rowsRead: 11,
      rowsAccepted: 4,
      rowsRejected: 5,
      rowsDuplicate: 2,
      error: null,
    });
    expect(body.startedAt).toEqual(expect.any(String));
    expect(body.finishedAt).toEqual(expect.any(String));
    const expectedRejects: [number, string][] = [
      [7, 'not a valid DE phone number'],
      [8, 'duplicate of line 2'],
      [10, 'variable first_name is empty'],
      [11, 'expected 3 cells, found 2'],
      [12, 'phone number contains letters'],
      [14, 'expected 3 cells, found 4'],
      [15, 'duplicate of line 13'],
    ];
    expect(body.firstRejects).toEqual(expectedRejects.map(([line, reason]) => ({ line, reason })));
    expect(await rejectsOf(body.id)).toEqual(expectedRejects);
    expect(await contactsOf(campaignId)).toEqual([
      ['+4915111111111', { first_name: 'Anna', city: 'Berlin, Mitte' }, 2],
      ['+4915122222222', { first_name: 'Bob "the builder"', city: 'Hamburg' }, 4],
      ['+4915133333333', { first_name: 'Multi\r\nLine', city: 'Köln' }, 5],
      ['+4915166666666', { first_name: 'Gina', city: 'Ulm' }, 13],
    ]);

    // A second import: addresses of the first are "already in the audience", new ones are added.
    const second = await upload(
      campaignId,
      'Mobile,first_name,city\n+4915111111111,A,B\n+4915177777777,New,C\n',
    );
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ rowsRead: 2, rowsAccepted: 1, rowsRejected: 0, rowsDuplicate: 1 });
    expect(await rejectsOf(second.body.id)).toEqual([[2, 'already in the audience']]);
    expect((await contactsOf(campaignId)).map(([address]) => address)).toEqual([
      '+4915111111111',
      '+4915122222222',
      '+4915133333333',
      '+4915166666666',
      '+4915177777777',
    ]);

    // Progress and history through the API.
    const listed = await call<{ items: Summary[] }>(`/v1/campaigns/${campaignId}/audience/imports`);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((item) => item.id)).toEqual([second.body.id, body.id]);
    const fetched = await call<Summary>(`/v1/campaigns/${campaignId}/audience/imports/${body.id}`);
    expect(fetched.body).toEqual(body);

    // Rejects page by line number.
    const rejectsPath = `/v1/campaigns/${campaignId}/audience/imports/${body.id}/rejects`;
    const page1 = await call<{
      items: { line: number; reason: string; raw: string }[];
      nextAfter: number | null;
    }>(`${rejectsPath}?limit=3`);
    expect(page1.body.items.map((item) => item.line)).toEqual([7, 8, 10]);
    expect(page1.body.items[0]?.raw).toBe('0151 1234567,Carl,München');
    expect(page1.body.nextAfter).toBe(10);
    const page2 = await call<{ items: { line: number }[]; nextAfter: number | null }>(
      `${rejectsPath}?after=10&limit=3`,
    );
    expect(page2.body.items.map((item) => item.line)).toEqual([11, 12, 14]);
    const page3 = await call<{ items: { line: number }[]; nextAfter: number | null }>(
      `${rejectsPath}?after=14&limit=3`,
    );
    expect(page3.body).toEqual({ items: [expect.objectContaining({ line: 15 })], nextAfter: null });
    const badPage = await call<ErrorBody>(`${rejectsPath}?limit=1001`);
    expect(badPage.status).toBe(400);
    expect(badPage.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('refuses a header without an address column, with duplicate or invalid names: 400, nothing stored', async () => {
    const campaignId = await createCampaign({ template: { text: 'Hello' } });
    const cases: [string, string[]][] = [
      [
        'name,email\nAnna,a@example.com\n',
        ['no address column: expected one of phone, phone_number, mobile, msisdn, address'],
      ],
      ['phone,mobile\n+4915111111111,+4915122222222\n', ['more than one address column: phone, mobile']],
      ['\n\nphone,name,Name\n+4915111111111,a,b\n', ['columns "name" and "Name" differ only in case']],
      [
        'phone,first name\n+4915111111111,a\n',
        [
          'column "first name" is not a valid variable name (a letter or _ then letters, digits, _ . or -, at most 64 characters)',
        ],
      ],
      ['', ['the file is empty or has only blank lines']],
    ];
    for (const [csv, reasons] of cases) {
      const { status, body } = await upload<ErrorBody>(campaignId, csv);
      expect({ csv, status, code: body.error.code }).toEqual({
        csv,
        status: 400,
        code: 'AUDIENCE_HEADER_INVALID',
      });
      expect(body.error.fields).toEqual(reasons.map((reason) => ({ field: 'header', reason })));
    }
    expect(await contactsOf(campaignId)).toEqual([]);
    expect(await importsOf(campaignId)).toEqual([]);
  });

  it('refuses a file without the columns the template uses: 400 AUDIENCE_COLUMNS_MISSING', async () => {
    const campaignId = await createCampaign({
      template: { text: 'Hi {{first_name}}, your order {{order.id}}', subject: '{{city}}' },
    });
    const { status, body } = await upload<ErrorBody>(campaignId, 'phone,city\n+4915111111111,Berlin\n');
    expect(status).toBe(400);
    expect(body.error.code).toBe('AUDIENCE_COLUMNS_MISSING');
    expect(body.error.details).toEqual({ missing: ['first_name', 'order.id'] });
    expect(body.error.fields?.map((field) => field.field)).toEqual(['first_name', 'order.id']);
    expect(await contactsOf(campaignId)).toEqual([]);
    expect(await importsOf(campaignId)).toEqual([]);
  });

  it('needs a country code when the campaign has no default country', async () => {
    const campaignId = await createCampaign({ channel: 'whatsapp', defaultCountry: null, template: {} });
    const { body } = await upload(campaignId, 'msisdn\n0151 11111111\n+44 7911 123456\n00 1 202 555 0123\n');
    expect(body).toMatchObject({ state: 'COMPLETED', rowsAccepted: 2, rowsRejected: 1 });
    expect(await rejectsOf(body.id)).toEqual([
      [2, 'phone number has no country code (start it with + or 00)'],
    ]);
    expect(await contactsOf(campaignId)).toEqual([
      ['+447911123456', null, 3],
      ['+12025550123', null, 4],
    ]);
  });

  it('imports e-mail addresses for an e-mail campaign', async () => {
    const campaignId = await createCampaign({
      channel: 'email',
      defaultCountry: null,
      template: { subject: 'News for {{Name}}', text: 'Hello' },
    });
    const csv = [
      'Name,Email_Address',
      'Anna,Anna.Berg@Example.COM',
      'Anna news,anna.berg+news@example.com',
      'Jörg,user@Bücher.de',
      'Dot,anna@example.com.',
      'Nobody,not-an-email',
      'Phone,+4915111111111',
      'Again,anna.berg@example.com',
    ].join('\n');
    const { status, body } = await upload(campaignId, csv);
    expect(status).toBe(201);
    expect(body).toMatchObject({ rowsRead: 7, rowsAccepted: 3, rowsRejected: 3, rowsDuplicate: 1 });
    expect(await contactsOf(campaignId)).toEqual([
      ['Anna.Berg@example.com', { Name: 'Anna' }, 2],
      ['anna.berg+news@example.com', { Name: 'Anna news' }, 3],
      ['user@xn--bcher-kva.de', { Name: 'Jörg' }, 4],
    ]);
    // The address column compares case-insensitively, as MariaDB's collation does.
    expect(await rejectsOf(body.id)).toEqual([
      [5, 'e-mail domain ends with a dot'],
      [6, 'e-mail address has no @'],
      [7, 'e-mail address has no @'],
      [8, 'duplicate of line 2'],
    ]);
  });

  it('fails a malformed file at the broken line, keeping the rows before it', async () => {
    const campaignId = await createCampaign({ template: {} });
    const { status, body } = await upload<ErrorBody>(
      campaignId,
      'phone\n+4915111111111\n+4915122222222\n"+4915133333333\n+4915144444444\n',
    );
    expect(status).toBe(400);
    expect(body.error.code).toBe('AUDIENCE_CSV_MALFORMED');
    expect(body.error.message).toMatch(/Quote Not Closed/);
    const [recorded] = await importsOf(campaignId);
    expect(body.error.details).toEqual({ importId: recorded?.id });
    expect(recorded?.state).toBe('FAILED');
    expect(recorded?.error).toMatch(/^AUDIENCE_CSV_MALFORMED: /);
    expect((await contactsOf(campaignId)).map(([address]) => address)).toEqual([
      '+4915111111111',
      '+4915122222222',
    ]);
  });

  it('stops an upload past AUDIENCE_MAX_BYTES with 413, keeping the whole rows before the limit', async () => {
    const campaignId = await createCampaign({ template: {} });
    // 6 + 15 * 6 = 96 bytes fit in the 100-byte limit: the header and six rows; the seventh is cut.
    const rows = Array.from({ length: 20 }, (_, i) => `+49151${String(10000000 + i)}`);
    const csv = `phone\n${rows.join('\n')}\n`;
    const { status, body } = await upload<ErrorBody>(campaignId, csv, small.url);
    expect(status).toBe(413);
    expect(body.error.code).toBe('AUDIENCE_TOO_LARGE');
    const [recorded] = await importsOf(campaignId);
    expect(body.error.details).toEqual({ importId: recorded?.id });
    expect(recorded?.state).toBe('FAILED');
    expect(recorded?.error).toMatch(/^AUDIENCE_TOO_LARGE: /);
    expect((await contactsOf(campaignId)).map(([address]) => address)).toEqual(rows.slice(0, 6));
    const summary = await call<Summary>(`/v1/campaigns/${campaignId}/audience/imports/${recorded?.id}`);
    expect(summary.body).toMatchObject({ state: 'FAILED', rowsRead: 6, rowsAccepted: 6 });

    // The same limit for a file fetched by URL: refused up front when its Content-Length says so,
    // cut while streaming when it does not.
    served.set('/big.csv', { status: 200, body: csv, headers: { 'content-length': String(csv.length) } });
    served.set('/big-chunked.csv', { status: 200, body: csv, chunked: true });
    const other = await createCampaign({ template: {} });
    const declared = await call<Summary>(
      `/v1/campaigns/${other}/audience/url`,
      { json: { url: `${filesUrl}/big.csv` } },
      small.url,
    );
    expect(await settled(other, declared.body.id, small.url)).toMatchObject({
      state: 'FAILED',
      rowsRead: 0,
      error: `AUDIENCE_TOO_LARGE: The audience file has ${csv.length} bytes; at most ${OVERSIZE_LIMIT} are accepted`,
    });
    const streamed = await call<Summary>(
      `/v1/campaigns/${other}/audience/url`,
      { json: { url: `${filesUrl}/big-chunked.csv` } },
      small.url,
    );
    expect(await settled(other, streamed.body.id, small.url)).toMatchObject({
      state: 'FAILED',
      rowsRead: 6,
      rowsAccepted: 6,
      error: expect.stringMatching(/^AUDIENCE_TOO_LARGE: /),
    });
    expect((await contactsOf(other)).map(([address]) => address)).toEqual(rows.slice(0, 6));
    expect(small.process.exitedUnexpectedly()).toBeUndefined();
  });

  it('imports an inline list, numbering lines by position', async () => {
    const campaignId = await createCampaign();
    const recipients = [
      { address: '+49 151 11111111', variables: { first_name: 'Anna', city: 'Berlin' } },
      { address: '0151 22222222' },
      { address: '+4915133333333', variables: { first_name: '  ' } },
      { address: 'nope', variables: { first_name: 'X' } },
      { address: '0049 151 11111111', variables: { first_name: 'Anna again' } },
      { address: '+4915144444444', variables: { first_name: 'Dora', 'bad name': 'x' } },
      { address: '+4915155555555', variables: { first_name: 'Eve' } },
    ];
    const { status, body } = await call<Summary>(`/v1/campaigns/${campaignId}/audience/inline`, {
      json: { recipients },
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({
      source: 'inline',
      state: 'COMPLETED',
      rowsRead: 7,
      rowsAccepted: 2,
      rowsRejected: 4,
      rowsDuplicate: 1,
    });
    expect(await rejectsOf(body.id)).toEqual([
      [2, 'variable first_name is missing'],
      [3, 'variable first_name is empty'],
      [4, 'phone number contains letters'],
      [5, 'duplicate of line 1'],
      [6, 'variable name "bad name" is not valid'],
    ]);
    expect(await contactsOf(campaignId)).toEqual([
      ['+4915111111111', { first_name: 'Anna', city: 'Berlin' }, 1],
      ['+4915155555555', { first_name: 'Eve' }, 7],
    ]);

    const empty = await call<ErrorBody>(`/v1/campaigns/${campaignId}/audience/inline`, {
      json: { recipients: [] },
    });
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('imports from a URL in the background', async () => {
    const campaignId = await createCampaign();
    served.set('/audience.csv', {
      status: 200,
      body: 'phone,first_name\n+4915111111111,Anna\n+4915111111111,Dup\nbad,X\n+4915122222222,Bob\n',
    });
    const { status, body } = await call<Summary>(`/v1/campaigns/${campaignId}/audience/url`, {
      json: { url: `${filesUrl}/audience.csv` },
    });
    expect(status).toBe(202);
    expect(body).toMatchObject({ source: 'url', state: 'RUNNING', rowsRead: 0 });
    const done = await settled(campaignId, body.id);
    expect(done).toMatchObject({
      state: 'COMPLETED',
      rowsRead: 4,
      rowsAccepted: 2,
      rowsRejected: 1,
      rowsDuplicate: 1,
    });
    expect(done.firstRejects).toEqual([
      { line: 3, reason: 'duplicate of line 2' },
      { line: 4, reason: 'phone number contains letters' },
    ]);
    expect(await contactsOf(campaignId)).toEqual([
      ['+4915111111111', { first_name: 'Anna' }, 2],
      ['+4915122222222', { first_name: 'Bob' }, 5],
    ]);
  });

  it('records URL failures on the import: HTTP errors, redirects, bad headers', async () => {
    const campaignId = await createCampaign();
    served.set('/moved', { status: 302, body: '', headers: { location: '/audience.csv' } });
    served.set('/no-address', { status: 200, body: 'name\nAnna\n' });
    const expectations: [string, RegExp][] = [
      ['/missing', /^AUDIENCE_URL_FAILED: The audience URL answered HTTP 404$/],
      [
        '/moved',
        /^AUDIENCE_URL_FAILED: .*redirect \(HTTP 302 to \/audience\.csv\); redirects are not followed$/,
      ],
      ['/no-address', /^AUDIENCE_HEADER_INVALID: .*no address column/],
    ];
    for (const [path, error] of expectations) {
      const { status, body } = await call<Summary>(`/v1/campaigns/${campaignId}/audience/url`, {
        json: { url: `${filesUrl}${path}` },
      });
      expect(status).toBe(202);
      const done = await settled(campaignId, body.id);
      expect({ path, state: done.state, error: done.error }).toEqual({
        path,
        state: 'FAILED',
        error: expect.stringMatching(error),
      });
    }
    expect(await contactsOf(campaignId)).toEqual([]);

    const invalid = await call<ErrorBody>(`/v1/campaigns/${campaignId}/audience/url`, {
      json: { url: 'ftp://example.com/a.csv' },
    });
    expect(invalid.status).toBe(400);
    expect(service.process.exitedUnexpectedly()).toBeUndefined();
  });

  it('refuses private addresses unless AUDIENCE_URL_ALLOW_PRIVATE, checking the resolved address', async () => {
    const campaignId = await createCampaign({ template: {} });
    served.set('/tiny.csv', { status: 200, body: 'phone\n+4915111111111\n' });
    const port = new URL(filesUrl).port;
    const cases: [string, string][] = [
      [`http://127.0.0.1:${port}/tiny.csv`, 'ADDRESS_NOT_PUBLIC: 127.0.0.1 is not a public address'],
      [`http://localhost:${port}/tiny.csv`, 'ADDRESS_NOT_PUBLIC: localhost resolves to'],
    ];
    for (const [url, error] of cases) {
      const { status, body } = await call<Summary>(
        `/v1/campaigns/${campaignId}/audience/url`,
        { json: { url } },
        strict.url,
      );
      expect(status).toBe(202);
      const done = await settled(campaignId, body.id, strict.url);
      expect(done.state).toBe('FAILED');
      expect(done.error).toContain(error);
    }
    expect(await contactsOf(campaignId)).toEqual([]);
  });

  it('answers 404 for an unknown campaign or import and 409 for a campaign whose audience is closed', async () => {
    const missing = 'camp-does-not-exist';
    const answers = await Promise.all([
      upload<ErrorBody>(missing, 'phone\n+4915111111111\n'),
      call<ErrorBody>(`/v1/campaigns/${missing}/audience/inline`, {
        json: { recipients: [{ address: '+4915111111111' }] },
      }),
      call<ErrorBody>(`/v1/campaigns/${missing}/audience/url`, { json: { url: `${filesUrl}/tiny.csv` } }),
      call<ErrorBody>(`/v1/campaigns/${missing}/audience/imports`),
      call<ErrorBody>(`/v1/campaigns/${missing}/audience/imports/1`),
    ]);
    for (const answer of answers) {
      expect({ status: answer.status, code: answer.body.error.code }).toEqual({
        status: 404,
        code: 'CAMPAIGN_NOT_FOUND',
      });
    }
    const campaignId = await createCampaign();
    const noImport = await call<ErrorBody>(`/v1/campaigns/${campaignId}/audience/imports/999999`);
    expect({ status: noImport.status, code: noImport.body.error.code }).toEqual({
      status: 404,
      code: 'AUDIENCE_IMPORT_NOT_FOUND',
    });

    for (const state of ['STOPPED', 'COMPLETED', 'ARCHIVED']) {
      const closed = await createCampaign({ state });
      const refused = await Promise.all([
        upload<ErrorBody>(closed, 'phone,first_name\n+4915111111111,A\n'),
        call<ErrorBody>(`/v1/campaigns/${closed}/audience/inline`, {
          json: { recipients: [{ address: '+4915111111111', variables: { first_name: 'A' } }] },
        }),
        call<ErrorBody>(`/v1/campaigns/${closed}/audience/url`, {
          json: { url: `${filesUrl}/audience.csv` },
        }),
      ]);
      for (const answer of refused) {
        expect({ state, status: answer.status, code: answer.body.error.code }).toEqual({
          state,
          status: 409,
          code: 'CAMPAIGN_NOT_EDITABLE',
        });
      }
      expect(await importsOf(closed)).toEqual([]);
    }
    for (const state of ['ACTIVE', 'PAUSED']) {
      const open = await createCampaign({ state });
      const { status } = await upload(open, 'phone,first_name\n+4915111111111,A\n');
      expect({ state, status }).toEqual({ state, status: 201 });
    }
  });

  it('asks for a multipart upload with a file field named file', async () => {
    const campaignId = await createCampaign();
    const wrongField = await call<ErrorBody>(`/v1/campaigns/${campaignId}/audience/csv`, {
      body: form('phone\n+4915111111111\n', 'upload'),
    });
    expect(wrongField.status).toBe(400);
    expect(wrongField.body.error).toMatchObject({
      code: 'AUDIENCE_FILE_MISSING',
      fields: [{ field: 'file' }],
    });
    // Any other body is 415, naming what to send: JSON and plain text reach the route, which refuses them;
    // a type no parser reads (a bare text/csv) is refused before it.
    const json = await call<ErrorBody>(`/v1/campaigns/${campaignId}/audience/csv`, { json: { phone: '+1' } });
    const text = await call<ErrorBody>(`/v1/campaigns/${campaignId}/audience/csv`, {
      body: 'phone\n+4915111111111\n',
      headers: { 'content-type': 'text/plain' },
    });
    const raw = await call<ErrorBody>(`/v1/campaigns/${campaignId}/audience/csv`, {
      body: 'phone\n+4915111111111\n',
      headers: { 'content-type': 'text/csv' },
    });
    for (const [answer, type] of [
      [json, 'application/json'],
      [text, 'text/plain'],
      [raw, 'text/csv'],
    ] as const) {
      expect({ type, status: answer.status, code: answer.body.error.code }).toEqual({
        type,
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
      });
      expect(answer.body.error.message).toContain(`Content-Type ${type} is not accepted here: send `);
      expect(answer.body.error.message).toContain('multipart/form-data');
    }
    expect(await importsOf(campaignId)).toEqual([]);
  });

  it('reads Latin-1 and UTF-16 files as what they say, and refuses one it cannot read, naming the line', async () => {
    const csv = 'phone,first_name,city\n+4915111111111,José,Köln\n+4915111111112,Zoë,Zürich\n';
    const expected = [
      ['+4915111111111', { first_name: 'José', city: 'Köln' }, 2],
      ['+4915111111112', { first_name: 'Zoë', city: 'Zürich' }, 3],
    ];
    for (const bytes of [Buffer.from(csv, 'latin1'), encode(csv, 'utf-16le', { addBOM: true })]) {
      const campaignId = await createCampaign();
      const { status, body } = await upload(campaignId, bytes);
      expect({ status, state: body.state, rowsAccepted: body.rowsAccepted }).toEqual({
        status: 201,
        state: 'COMPLETED',
        rowsAccepted: 2,
      });
      expect(await contactsOf(campaignId)).toEqual(expected);
    }

    const cyrillic = await createCampaign();
    const refused = await upload<ErrorBody>(
      cyrillic,
      encode('phone,first_name\n+4915111111111,Иван\n', 'windows-1251'),
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'AUDIENCE_ENCODING_INVALID', details: { line: 2 } });
    expect(refused.body.error.fields?.[0]?.reason).toMatch(/^line 2: byte 0xC8 is not UTF-8/);
    // The header (plain ASCII) was read before the encoding was known: the import exists, FAILED, empty.
    const [cyrillicImport] = await importsOf(cyrillic);
    expect(cyrillicImport?.state).toBe('FAILED');
    expect(await contactsOf(cyrillic)).toEqual([]);
    // A binary file (NUL bytes from the first line) creates nothing.
    const binary = await createCampaign();
    const zip = await upload<ErrorBody>(binary, Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0, 0x0a]));
    expect(zip.status).toBe(400);
    expect(zip.body.error).toMatchObject({ code: 'AUDIENCE_ENCODING_INVALID', details: { line: 1 } });
    expect(await importsOf(binary)).toEqual([]);

    // Plain ASCII then UTF-8, then a Latin-1 byte: the lines before it are imported, the import fails there.
    const rows = Array.from(
      { length: 3000 },
      (_, i) => `+49151${String(20_000_000 + i)},Jürgen Müller-Lüdenscheidt\n`,
    );
    const mixed = await createCampaign();
    const broken = await upload<ErrorBody>(
      mixed,
      Buffer.concat([
        Buffer.from(`phone,first_name\n${rows.join('')}`),
        Buffer.from('+4915100000001,Jos\xe9\n', 'latin1'),
      ]),
    );
    expect(broken.status).toBe(400);
    expect(broken.body.error).toMatchObject({ code: 'AUDIENCE_ENCODING_INVALID', details: { line: 3002 } });
    const [recorded] = await importsOf(mixed);
    expect(recorded?.state).toBe('FAILED');
    expect(String(recorded?.error)).toContain(
      'AUDIENCE_ENCODING_INVALID: The file cannot be read from line 3002',
    );
    expect(broken.body.error.details).toMatchObject({ importId: recorded?.id });
    const summary = await call<Summary>(`/v1/campaigns/${mixed}/audience/imports/${recorded?.id}`);
    expect(summary.body).toMatchObject({ rowsRead: 3000, rowsAccepted: 3000, rowsRejected: 0 });
  });

  it("keeps imports to the caller's tenant: another tenant's campaign answers 404 as a missing one", async () => {
    const campaignId = await createCampaign();
    const first = await upload(campaignId, 'phone,first_name\n+4915111111111,A\nbad,B\n');
    expect(first.status).toBe(201);
    const importId = first.body.id;
    const importsBefore = await importsOf(campaignId);
    const asB = (path: string, init: Parameters<typeof call>[1] = {}): Promise<Answer<ErrorBody>> =>
      call<ErrorBody>(path, { ...init, key: keyT2 });
    const base = `/v1/campaigns/${campaignId}/audience`;
    const foreign = await Promise.all([
      upload<ErrorBody>(campaignId, 'phone,first_name\n+4915111111112,B\n', service.url, keyT2),
      // Before the body is looked at: a foreign campaign is 404 whatever is sent.
      asB(`${base}/csv`, { json: {} }),
      asB(`${base}/inline`, {
        json: { recipients: [{ address: '+4915111111113', variables: { first_name: 'C' } }] },
      }),
      asB(`${base}/url`, { json: { url: `${filesUrl}/tiny.csv` } }),
      asB(`${base}/imports`),
      asB(`${base}/imports/${importId}`),
      asB(`${base}/imports/${importId}/rejects`),
      // The operator acting for tenant t2 sees what t2 sees.
      call<ErrorBody>(`${base}/imports/${importId}`, {
        key: null,
        headers: { ...bearer(TEST_OPERATOR_KEY), 'x-ums-tenant': 't2' },
      }),
    ]);
    const missing = await call<ErrorBody>('/v1/campaigns/camp-missing/audience/imports', { key: keyT2 });
    for (const answer of foreign) {
      expect({ status: answer.status, error: answer.body.error }).toEqual({
        status: 404,
        error: {
          code: 'CAMPAIGN_NOT_FOUND',
          message: missing.body.error.message.replace('camp-missing', campaignId),
        },
      });
    }
    expect(await importsOf(campaignId)).toEqual(importsBefore);
    expect(await contactsOf(campaignId)).toEqual([['+4915111111111', { first_name: 'A' }, 2]]);

    // The owner, and the operator across tenants, see it.
    const own = await call<{ items: { line: number }[] }>(`${base}/imports/${importId}/rejects`);
    expect(own.body.items.map((item) => item.line)).toEqual([3]);
    const operator = await call<Summary>(`${base}/imports/${importId}`, { key: TEST_OPERATOR_KEY });
    expect(operator).toMatchObject({ status: 200, body: { id: importId, rowsAccepted: 1 } });
  });

  it('needs a key, and campaigns:write to import', async () => {
    const campaignId = await createCampaign();
    const readOnly = await createTenantKey(service.url, 't1', [Scope.CampaignsRead]);
    const none = await upload<ErrorBody>(
      campaignId,
      'phone,first_name\n+4915111111111,A\n',
      service.url,
      null,
    );
    expect(none.status).toBe(401);
    const reader = await call<ErrorBody>(`/v1/campaigns/${campaignId}/audience/inline`, {
      json: { recipients: [{ address: '+4915111111111', variables: { first_name: 'A' } }] },
      key: readOnly,
    });
    expect({ status: reader.status, code: reader.body.error.code }).toEqual({
      status: 403,
      code: 'AUTH_SCOPE_MISSING',
    });
    expect((await call(`/v1/campaigns/${campaignId}/audience/imports`, { key: readOnly })).status).toBe(200);
    expect(await importsOf(campaignId)).toEqual([]);
  });

  it('keeps a quiet import alive and fails imports abandoned by a dead process', async () => {
    const campaignId = await createCampaign({ template: {} });
    const { body } = await call<Summary>(
      `/v1/campaigns/${campaignId}/audience/url`,
      { json: { url: `${filesUrl}/quiet.csv` } },
      small.url,
    );
    await waitUntil('the quiet file to be requested', () => quiet.length === 1);
    // Well past the staleness: the process touches the import it runs, so no replica fails it.
    await new Promise((resolve) => setTimeout(resolve, STALE_MS * 2.5));
    expect((await importsOf(campaignId))[0]).toMatchObject({ state: 'RUNNING' });
    quiet[0]?.end();
    expect(await settled(campaignId, body.id, small.url)).toMatchObject({
      state: 'COMPLETED',
      rowsAccepted: 3,
    });

    // An import left RUNNING by a process that died (no one touches it) is failed by the others.
    const result = (await ds.query(
      `INSERT INTO audience_imports (campaign_id, source, state, started_at, updated_at)
       VALUES (?, 'csv', 'RUNNING', UTC_TIMESTAMP(3) - INTERVAL 1 HOUR, UTC_TIMESTAMP(3) - INTERVAL 1 HOUR)`,
      [campaignId],
    )) as { insertId: number };
    const orphan = await settled(campaignId, String(result.insertId));
    expect(orphan.state).toBe('FAILED');
    expect(orphan.error).toMatch(/^AUDIENCE_IMPORT_ABANDONED: no sign of life for 2000 ms/);
  });

  // Last: it stops the main service process.
  it('stops running imports at shutdown, keeping their rows and marking them FAILED', async () => {
    const campaignId = await createCampaign({ template: {} });
    const { status, body } = await call<Summary>(`/v1/campaigns/${campaignId}/audience/url`, {
      json: { url: `${filesUrl}/endless.csv` },
    });
    expect(status).toBe(202);
    await waitUntil('the first rows to land', async () => {
      const answer = await call<Summary>(`/v1/campaigns/${campaignId}/audience/imports/${body.id}`);
      return answer.body.rowsAccepted >= CHUNK_ROWS;
    });
    expect(await service.process.stop()).toBe(0);
    const [recorded] = await importsOf(campaignId);
    expect(recorded).toEqual({
      id: body.id,
      state: 'FAILED',
      error: expect.stringMatching(/^SERVICE_SHUTTING_DOWN: /),
    });
    // What was parsed before the shutdown landed, and the counters say so (the parser may still have held
    // the last line back, waiting to see how it ends).
    const contacts = await contactsOf(campaignId);
    const [counters] = (await ds.query('SELECT rows_read, rows_accepted FROM audience_imports WHERE id = ?', [
      body.id,
    ])) as { rows_read: string; rows_accepted: string }[];
    expect(contacts.length).toBeGreaterThanOrEqual(CHUNK_ROWS);
    expect(contacts.map(([, , line]) => line)).toEqual(
      Array.from({ length: contacts.length }, (_, i) => i + 2),
    );
    expect([Number(counters?.rows_read), Number(counters?.rows_accepted)]).toEqual([
      contacts.length,
      contacts.length,
    ]);
  });
});
