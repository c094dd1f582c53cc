import { randomBytes } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AllTopics,
  type ContactListImportSummary,
  type ContactListMemberPage,
  type ContactListView,
  type ImportSummary,
} from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  bearer,
  createTenantKey,
  createTestDatabase,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  testKafka,
  waitUntil,
} from '@ums/testing';
import type { DataSource } from 'typeorm';

jest.setTimeout(180_000);

interface ErrorBody {
  error: { code: string; message: string; fields?: { field: string; reason: string }[]; details?: object };
}
interface Answer<T> {
  status: number;
  body: T;
}

/** The n-th test number in E.164, `+4915100002001` on. */
const phone = (n: number): string => `+49151${String(2000 + n).padStart(8, '0')}`;
/** The same number as people write it in Germany (read with the list's default country DE). */
const national = (n: number): string => `0151 ${String(2000 + n).padStart(8, '0')}`;

/**
 * Contact lists through the API of the real campaign-scheduler (built from dist/) on MariaDB:
 * imports by upload and URL with their rejects, and lists used as the audience of campaigns, checked
 * against the rows stored in contact_list_members, contacts and audience_rejects. Members are copied
 * two at a time (CONTACT_LIST_COPY_ROWS) so that every copy spans several windows.
 */
describe('contact lists (service process)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let service: ServiceProcess;
  let files: Server;
  let filesUrl: string;
  let keyT1 = '';
  let keyT2 = '';
  let campaignSeq = 0;
  const quiet: ServerResponse[] = [];
  const served = new Map<string, string>();

  beforeAll(async () => {
    database = await createTestDatabase('ums_contact_lists');
    ds = createDataSource(database.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    await ensureTopics(testKafka(), AllTopics, 1, new KafkaNames(namespace));
    for (const tenant of ['t1', 't2']) {
      for (const channel of ['sms', 'email']) {
        await ds.query(
          `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, rate_ceiling_per_sec, rate_floor_per_sec)
           VALUES (?, ?, ?, 'simulator', ?, '{}', 100, 1)`,
          [`cred-${tenant}-${channel}`, tenant, `sim ${channel}`, channel],
        );
      }
    }
    files = createServer((request, response) => {
      if (request.url === '/quiet.csv') {
        // A header and a row, then silence until the test ends the response.
        response.writeHead(200, { 'content-type': 'text/csv' });
        response.write(`phone,name\n${phone(90)},Quiet\n`);
        quiet.push(response);
        return;
      }
      const body = served.get(request.url ?? '');
      response.writeHead(body === undefined ? 404 : 200, { 'content-type': 'text/csv' });
      response.end(body ?? 'not here');
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    service = await startServiceProcess({
      app: 'campaign-scheduler',
      instance: 'contact-lists',
      env: {
        ...serviceEnv(database.settings.database, namespace),
        AUDIENCE_INSERT_CHUNK_ROWS: '3',
        AUDIENCE_URL_ALLOW_PRIVATE: 'true',
        CONTACT_LIST_COPY_ROWS: '2',
      },
    });
    [keyT1, keyT2] = await Promise.all([
      createTenantKey(service.url, 't1'),
      createTenantKey(service.url, 't2'),
    ]);
  });

  afterAll(async () => {
    for (const response of quiet) response.end();
    await service?.process.stop();
    files?.closeAllConnections();
    await new Promise((resolve) => (files ? files.close(resolve) : resolve(undefined)));
    if (ds?.isInitialized) await ds.destroy();
    await database?.drop();
  });

  async function call<T>(
    path: string,
    init: { method?: string; json?: unknown; body?: FormData; key?: string } = {},
  ): Promise<Answer<T>> {
    const response = await fetch(`${service.url}${path}`, {
      method: init.method ?? (init.json !== undefined || init.body !== undefined ? 'POST' : 'GET'),
      headers: {
        ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}),
        ...bearer(init.key ?? keyT1),
      },
      body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
    });
    const text = await response.text();
    return { status: response.status, body: (text === '' ? undefined : JSON.parse(text)) as T };
  }

  async function createList(channel = 'sms', key = keyT1): Promise<ContactListView> {
    const answer = await call<ContactListView>('/v1/contact-lists', {
      json: { name: `list ${channel}`, channel, defaultCountry: 'DE' },
      key,
    });
    expect(answer.status).toBe(201);
    return answer.body;
  }

  function upload(listId: string, csv: string): Promise<Answer<ContactListImportSummary>> {
    const form = new FormData();
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'members.csv');
    return call(`/v1/contact-lists/${listId}/imports`, { body: form });
  }

  async function createCampaign(
    options: { channel?: string; template?: object; state?: string; tenant?: string } = {},
  ): Promise<string> {
    const id = `camp-${++campaignSeq}-${randomBytes(3).toString('hex')}`;
    const channel = options.channel ?? 'sms';
    const tenant = options.tenant ?? 't1';
    await ds.query(
      `INSERT INTO campaigns (id, tenant_id, name, channel, credential_id, template, default_country, schedule_kind, state)
       VALUES (?, ?, ?, ?, ?, ?, 'DE', 'now', ?)`,
      [
        id,
        tenant,
        `lists ${id}`,
        channel,
        `cred-${tenant}-${channel}`,
        JSON.stringify(options.template ?? { text: 'Hello' }),
        options.state ?? 'DRAFT',
      ],
    );
    return id;
  }

  const useList = (
    campaignId: string,
    json: object,
    key = keyT1,
  ): Promise<Answer<ImportSummary & ErrorBody>> =>
    call(`/v1/campaigns/${campaignId}/audience/lists`, { json, key });

  async function contactsOf(campaignId: string): Promise<string[]> {
    const rows = (await ds.query('SELECT address FROM contacts WHERE campaign_id = ? ORDER BY address', [
      campaignId,
    ])) as { address: string }[];
    return rows.map((row) => row.address);
  }

  async function membersOf(listId: string): Promise<string[]> {
    const rows = (await ds.query(
      'SELECT address FROM contact_list_members WHERE list_id = ? ORDER BY address',
      [listId],
    )) as { address: string }[];
    return rows.map((row) => row.address);
  }

  async function settled(listId: string, importId: string): Promise<ContactListImportSummary> {
    return waitUntil(`list import ${importId} to finish`, async () => {
      const answer = await call<ContactListImportSummary>(`/v1/contact-lists/${listId}/imports/${importId}`);
      return answer.body.state === 'COMPLETED' || answer.body.state === 'FAILED' ? answer.body : undefined;
    });
  }

  /** A list of 8 members (one by URL) and the summary of its upload, shared by the campaign tests. */
  let shared: ContactListView;

  it('imports a CSV upload: normalized members, a bad row rejected with its line and reason', async () => {
    shared = await createList();
    expect(shared).toMatchObject({ channel: 'sms', defaultCountry: 'DE', memberCount: 0 });
    expect(shared.id).toMatch(/^lst_[0-9A-Z]{26}$/);
    const csv = [
      'phone,name,city,plan',
      `${phone(1)},Ada,Berlin,gold`,
      `${national(2)},Grace,Berlin,silver`,
      'not-a-number,Bad,Berlin,gold',
      `${phone(3)},,Berlin,bronze`,
      `${phone(4)},Linus,Hamburg,gold`,
      `${phone(1)},Ada again,Berlin,gold`,
      '',
      `${phone(5)},Barbara,Berlin,gold`,
      `${phone(6)},Edsger,Munich`,
    ].join('\n');
    const answer = await upload(shared.id, csv);
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      listId: shared.id,
      source: 'csv',
      state: 'COMPLETED',
      rowsRead: 8,
      rowsAccepted: 5,
      rowsRejected: 2,
      rowsDuplicate: 1,
      firstRejects: [
        { line: 4, reason: 'phone number contains letters' },
        { line: 7, reason: 'duplicate of line 2' },
        { line: 10, reason: 'expected 4 cells, found 3' },
      ],
    });
    expect(await membersOf(shared.id)).toEqual([1, 2, 3, 4, 5].map(phone));
    const again = await call<ContactListImportSummary>(
      `/v1/contact-lists/${shared.id}/imports/${answer.body.id}`,
    );
    expect(again.body).toEqual(answer.body);
    const rejects = await call<{ items: { line: number; raw: string }[]; nextAfter: number | null }>(
      `/v1/contact-lists/${shared.id}/imports/${answer.body.id}/rejects?limit=2`,
    );
    expect(rejects.body.items.map((r) => [r.line, r.raw])).toEqual([
      [4, 'not-a-number,Bad,Berlin,gold'],
      [7, `${phone(1)},Ada again,Berlin,gold`],
    ]);
    expect(rejects.body.nextAfter).toBe(7);
    expect((await call<ContactListView>(`/v1/contact-lists/${shared.id}`)).body.memberCount).toBe(5);

    // Members page by id, variables as imported.
    const first = await call<ContactListMemberPage>(`/v1/contact-lists/${shared.id}/members?limit=2`);
    expect(first.body.items).toEqual([
      {
        id: expect.any(String),
        address: phone(1),
        variables: { name: 'Ada', city: 'Berlin', plan: 'gold' },
        line: 2,
      },
      {
        id: expect.any(String),
        address: phone(2),
        variables: { name: 'Grace', city: 'Berlin', plan: 'silver' },
        line: 3,
      },
    ]);
    const rest = await call<ContactListMemberPage>(
      `/v1/contact-lists/${shared.id}/members?limit=10&after=${first.body.nextAfter ?? ''}`,
    );
    expect(rest.body.items.map((m) => m.address)).toEqual([3, 4, 5].map(phone));
    expect(rest.body.nextAfter).toBeNull();
  });

  it('imports from a URL in the background, skipping members already in the list', async () => {
    served.set(
      '/more.csv',
      `phone,name,city,plan\n${phone(5)},Barbara,Berlin,gold\n${phone(7)},Ken,Berlin,silver\n`,
    );
    const started = await call<ContactListImportSummary>(`/v1/contact-lists/${shared.id}/imports/url`, {
      json: { url: `${filesUrl}/more.csv` },
    });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ source: 'url', state: 'RUNNING' });
    const done = await settled(shared.id, started.body.id);
    expect(done).toMatchObject({
      state: 'COMPLETED',
      rowsRead: 2,
      rowsAccepted: 1,
      rowsDuplicate: 1,
      firstRejects: [{ line: 2, reason: 'already in the audience' }],
    });
    expect(await membersOf(shared.id)).toEqual([1, 2, 3, 4, 5, 7].map(phone));
    expect((await call<ContactListView>(`/v1/contact-lists/${shared.id}`)).body.memberCount).toBe(6);
    // A URL that answers 404 fails the import, and says why.
    const missing = await call<ContactListImportSummary>(`/v1/contact-lists/${shared.id}/imports/url`, {
      json: { url: `${filesUrl}/missing.csv` },
    });
    expect(await settled(shared.id, missing.body.id)).toMatchObject({
      state: 'FAILED',
      error: expect.stringContaining('HTTP 404'),
    });
  });

  it('is the audience of two campaigns, imported once; a repeat adds nothing', async () => {
    const importsBefore = (await ds.query(
      'SELECT COUNT(*) AS n FROM contact_list_imports WHERE list_id = ?',
      [shared.id],
    )) as { n: string }[];
    const greeting = await createCampaign({ template: { text: 'Hi {{name}}' } });
    const plain = await createCampaign();
    // The greeting campaign already has one of the members from a CSV of its own.
    const own = new FormData();
    own.append(
      'file',
      new Blob([`phone,name\n${phone(4)},Linus\n${phone(50)},Other\n`], { type: 'text/csv' }),
      'a.csv',
    );
    expect((await call(`/v1/campaigns/${greeting}/audience/csv`, { body: own })).status).toBe(201);

    const first = await useList(greeting, { listId: shared.id });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      campaignId: greeting,
      source: 'list',
      state: 'COMPLETED',
      rowsRead: 6,
      rowsAccepted: 4,
      rowsRejected: 1,
      rowsDuplicate: 1,
      firstRejects: [{ line: 5, reason: 'variable name is empty' }],
    });
    expect(await contactsOf(greeting)).toEqual([1, 2, 4, 5, 7, 50].map(phone));

    const second = await useList(plain, { listId: shared.id });
    expect(second.body).toMatchObject({ source: 'list', rowsRead: 6, rowsAccepted: 6, rowsRejected: 0 });
    expect(await contactsOf(plain)).toEqual([1, 2, 3, 4, 5, 7].map(phone));
    // The variables travel with the members.
    const [ada] = (await ds.query(
      'SELECT variables, import_id FROM contacts WHERE campaign_id = ? AND address = ?',
      [plain, phone(1)],
    )) as { variables: unknown; import_id: string }[];
    const variables: unknown =
      typeof ada?.variables === 'string' ? JSON.parse(ada.variables) : ada?.variables;
    expect(variables).toEqual({ name: 'Ada', city: 'Berlin', plan: 'gold' });
    expect(String(ada?.import_id)).toBe(second.body.id);

    // Using it again changes nothing: every member is a duplicate now.
    const repeat = await useList(plain, { listId: shared.id });
    expect(repeat.body).toMatchObject({ rowsRead: 6, rowsAccepted: 0, rowsDuplicate: 6 });
    expect(await contactsOf(plain)).toEqual([1, 2, 3, 4, 5, 7].map(phone));
    const importsAfter = (await ds.query('SELECT COUNT(*) AS n FROM contact_list_imports WHERE list_id = ?', [
      shared.id,
    ])) as { n: string }[];
    expect(Number(importsAfter[0]?.n)).toBe(Number(importsBefore[0]?.n));
    // The campaign's import list shows the copies as its imports.
    const imports = await call<{ items: { source: string }[] }>(`/v1/campaigns/${plain}/audience/imports`);
    expect(imports.body.items.map((i) => i.source)).toEqual(['list', 'list']);
  });

  it('takes only the members a segment picks: equality and one-of, every attribute at once', async () => {
    const campaign = await createCampaign();
    const answer = await useList(campaign, {
      listId: shared.id,
      segment: { attributes: { city: 'Berlin', plan: ['gold', 'silver'] } },
    });
    expect(answer.body).toMatchObject({ rowsRead: 4, rowsAccepted: 4 });
    expect(await contactsOf(campaign)).toEqual([1, 2, 5, 7].map(phone));
    const hamburg = await createCampaign();
    await useList(hamburg, { listId: shared.id, segment: { attributes: { city: 'Hamburg' } } });
    expect(await contactsOf(hamburg)).toEqual([phone(4)]);
    // A value matches exactly, as stored: another case is another value.
    const none = await createCampaign();
    expect(
      (await useList(none, { listId: shared.id, segment: { attributes: { city: 'berlin' } } })).body,
    ).toMatchObject({
      rowsRead: 0,
      rowsAccepted: 0,
    });
  });

  it('refuses with 4xx naming the field: other tenants, other channels, bad segments, frozen campaigns', async () => {
    const campaign = await createCampaign();
    // t2 neither sees t1's list nor may use it, not even for its own campaign.
    const foreignCampaign = await createCampaign({ tenant: 't2' });
    const foreign = await useList(foreignCampaign, { listId: shared.id }, keyT2);
    expect([foreign.status, foreign.body.error.code, foreign.body.error.details]).toEqual([
      404,
      'CONTACT_LIST_NOT_FOUND',
      { field: 'listId' },
    ]);
    expect(foreign.body.error.message).toMatch(/^listId: /);
    expect((await call(`/v1/contact-lists/${shared.id}`, { key: keyT2 })).status).toBe(404);
    expect((await call(`/v1/contact-lists/${shared.id}/members`, { key: keyT2 })).status).toBe(404);
    const t2List = await createList('sms', keyT2);
    const crossed = await useList(campaign, { listId: t2List.id });
    expect([crossed.status, crossed.body.error.details]).toEqual([404, { field: 'listId' }]);
    // t1 does not see t2's list among its own.
    const page = await call<{ items: ContactListView[] }>('/v1/contact-lists?limit=100');
    expect(page.body.items.map((l) => l.id)).not.toContain(t2List.id);
    expect(page.body.items.map((l) => l.id)).toContain(shared.id);

    const emailCampaign = await createCampaign({ channel: 'email' });
    const mismatch = await useList(emailCampaign, { listId: shared.id });
    expect([mismatch.status, mismatch.body.error.code, mismatch.body.error.fields?.[0]?.field]).toEqual([
      400,
      'CONTACT_LIST_CHANNEL_MISMATCH',
      'listId',
    ]);

    const cases: [object, string, string][] = [
      [
        { listId: shared.id, segment: { attributes: { 'ci-ty': 'Berlin' } } },
        'CONTACT_LIST_SEGMENT_INVALID',
        'segment.attributes.ci-ty',
      ],
      [
        { listId: shared.id, segment: { attributes: { city: 7 } } },
        'CONTACT_LIST_SEGMENT_INVALID',
        'segment.attributes.city',
      ],
      [{ listId: shared.id, segment: { city: 'Berlin' } }, 'CONTACT_LIST_SEGMENT_INVALID', 'segment.city'],
      [{ listId: shared.id, segment: 'city=Berlin' }, 'VALIDATION_FAILED', 'segment'],
      [{ listId: 'no such list!' }, 'VALIDATION_FAILED', 'listId'],
      [{}, 'VALIDATION_FAILED', 'listId'],
    ];
    for (const [json, code, field] of cases) {
      const refused = await useList(campaign, json);
      expect([refused.status, refused.body.error.code, refused.body.error.fields?.[0]?.field]).toEqual([
        400,
        code,
        field,
      ]);
    }
    expect(await contactsOf(campaign)).toEqual([]);

    const done = await createCampaign({ state: 'COMPLETED' });
    const frozen = await useList(done, { listId: shared.id });
    expect([frozen.status, frozen.body.error.code]).toEqual([409, 'CAMPAIGN_NOT_EDITABLE']);
    const missingCampaign = await useList('camp-none', { listId: shared.id });
    expect([missingCampaign.status, missingCampaign.body.error.code]).toEqual([404, 'CAMPAIGN_NOT_FOUND']);

    // A list file is held to the audience rules: a header without an address column is refused.
    const header = await upload(shared.id, 'name,city\nAda,Berlin\n');
    expect([header.status, (header.body as unknown as ErrorBody).error.code]).toEqual([
      400,
      'AUDIENCE_HEADER_INVALID',
    ]);
    const create = await call<ErrorBody>('/v1/contact-lists', { json: { name: 'x', channel: 'fax' } });
    expect([create.status, create.body.error.fields?.[0]?.field]).toEqual([400, 'channel']);
  });

  it('refuses to delete a list while an import runs, then deletes it with its members', async () => {
    const list = await createList();
    expect((await upload(list.id, `phone\n${phone(80)}\n${phone(81)}\n`)).body).toMatchObject({
      rowsAccepted: 2,
    });
    const running = await call<ContactListImportSummary>(`/v1/contact-lists/${list.id}/imports/url`, {
      json: { url: `${filesUrl}/quiet.csv` },
    });
    expect(running.body.state).toBe('RUNNING');
    await waitUntil('the quiet file is being read', () => quiet.length > 0);
    const refused = await call<ErrorBody>(`/v1/contact-lists/${list.id}`, { method: 'DELETE' });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'CONTACT_LIST_IMPORT_RUNNING']);
    quiet.shift()?.end();
    expect(await settled(list.id, running.body.id)).toMatchObject({ state: 'COMPLETED', rowsAccepted: 1 });

    // Another tenant cannot delete it.
    expect((await call(`/v1/contact-lists/${list.id}`, { method: 'DELETE', key: keyT2 })).status).toBe(404);
    expect((await call(`/v1/contact-lists/${list.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await call(`/v1/contact-lists/${list.id}`)).status).toBe(404);
    expect(await membersOf(list.id)).toEqual([]);
    const imports = (await ds.query('SELECT COUNT(*) AS n FROM contact_list_imports WHERE list_id = ?', [
      list.id,
    ])) as { n: string }[];
    expect(Number(imports[0]?.n)).toBe(0);
  });
});
