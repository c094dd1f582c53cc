import { createTestDatabase } from '@ums/testing';
import type { DataSource } from 'typeorm';
import { createDataSource } from './data-source-options';
import { revertAllMigrations, runPendingMigrations } from './migration-runner';

jest.setTimeout(60_000);

const MIGRATIONS_TABLE = 'migrations';

/** Full column list per table, in order: the schema contract later services build on. */
const EXPECTED_COLUMNS: Record<string, string[]> = {
  credentials: [
    'id',
    'tenant_id',
    'name',
    'provider',
    'channel',
    'config',
    'secret_ciphertext',
    'rate_ceiling_per_sec',
    'rate_floor_per_sec',
    'tenant_rate_cap_per_sec',
    'created_at',
    'updated_at',
    'callback_secret_ciphertext',
    'verify_token_ciphertext',
  ],
  campaigns: [
    'id',
    'tenant_id',
    'name',
    'channel',
    'credential_id',
    'template',
    'default_country',
    'schedule_kind',
    'schedule_at',
    'cron_expression',
    'time_zone',
    'next_fire_at',
    'state',
    'source_request_id',
    'created_at',
    'updated_at',
    'priority',
  ],
  audience_imports: [
    'id',
    'campaign_id',
    'source',
    'state',
    'rows_read',
    'rows_accepted',
    'rows_rejected',
    'rows_duplicate',
    'error',
    'started_at',
    'finished_at',
    'created_at',
    'updated_at',
  ],
  audience_rejects: ['id', 'import_id', 'line_no', 'reason', 'raw'],
  contacts: ['id', 'campaign_id', 'address', 'variables', 'line_no', 'created_at', 'import_id'],
  opt_outs: ['tenant_id', 'channel', 'address', 'source', 'created_at'],
  runs: [
    'id',
    'campaign_id',
    'fire_at',
    'state',
    'lease_owner',
    'lease_epoch',
    'lease_expires_at',
    'checkpoint_cursor',
    'batches_published',
    'batches_finished',
    'checkpoint_at',
    'expanded_at',
    'attempts',
    'failure_reason',
    'total',
    'pending',
    'sending',
    'sent',
    'delivered',
    'read_count',
    'failed',
    'unknown',
    'skipped',
    'started_at',
    'finished_at',
    'created_at',
    'updated_at',
    'pause_reason',
    'segments',
    'charged',
  ],
  messages: [
    'id',
    'run_id',
    'campaign_id',
    'tenant_id',
    'contact_id',
    'channel',
    'credential_id',
    'recipient',
    'lane',
    'state',
    'claim_token',
    'claimed_at',
    'attempts',
    'reason',
    'error_code',
    'error_text',
    'idempotency_key',
    'content',
    'sent_at',
    'delivered_at',
    'read_at',
    'failed_at',
    'created_at',
    'updated_at',
    'segments',
    'encoding',
    'charge',
  ],
  subscribers: [
    'id',
    'tenant_id',
    'url',
    'event_types',
    'campaign_filter',
    'is_internal',
    'max_events_per_request',
    'secret',
    'previous_secret',
    'previous_secret_expires_at',
    'state',
    'last_error',
    'last_success_at',
    'last_failure_at',
    'dead_since',
    'created_at',
    'updated_at',
  ],
  deliveries: [
    'id',
    'subscriber_id',
    'event_id',
    'event_type',
    'payload',
    'state',
    'attempts',
    'last_status_code',
    'last_error',
    'next_attempt_at',
    'delivered_at',
    'created_at',
    'updated_at',
  ],
  processed_events: ['consumer', 'event_id', 'processed_at'],
  run_counter_deltas: [
    'id',
    'run_id',
    'pending',
    'sending',
    'sent',
    'delivered',
    'read_count',
    'failed',
    'unknown',
    'skipped',
    'batches_finished',
    'created_at',
    'segments',
    'charged',
  ],
  dead_letters: [
    'id',
    'consumer_group',
    'source_topic',
    'source_partition',
    'source_offset',
    'message_key',
    'message_value',
    'value_encoding',
    'headers',
    'error_code',
    'reason',
    'attempts',
    'failed_at',
    'replays',
    'replayed_at',
    'created_at',
    'tenant_id',
  ],
  api_keys: [
    'id',
    'tenant_id',
    'name',
    'scopes',
    'secret_hash',
    'created_by',
    'created_at',
    'expires_at',
    'revoked_at',
  ],
  audit_events: [
    'id',
    'occurred_at',
    'principal_kind',
    'principal_id',
    'tenant_id',
    'service',
    'action',
    'target',
    'status',
    'result',
    'request_id',
  ],
  message_provider_ids: ['message_id', 'provider_message_id'],
  idempotency_keys: [
    'tenant_id',
    'route',
    'idem_key',
    'request_hash',
    'state',
    'claim',
    'status',
    'response',
    'created_at',
    'expires_at',
  ],
  run_events: [
    'id',
    'run_id',
    'campaign_id',
    'event',
    'state',
    'previous_state',
    'reason',
    'total',
    'pending',
    'sending',
    'sent',
    'delivered',
    'read_count',
    'failed',
    'unknown',
    'skipped',
    'occurred_at',
    'published_at',
  ],
  credential_rate_seconds: [
    'credential_id',
    'second_at',
    'tenant_id',
    'rate',
    'granted',
    'accepted',
    'congested',
    'errors_5xx',
    'timeouts',
    'decreases',
  ],
  status_refresh_requests: [
    'id',
    'run_id',
    'tenant_id',
    'requested_by',
    'requested_at',
    'cursor_state',
    'cursor_id',
    'finished_at',
    'settled_sent',
    'settled_delivered',
    'settled_read',
    'settled_failed',
    'settled_not_received',
    'unresolved',
  ],
  status_refresh_cursors: ['state', 'claimed_at', 'message_id', 'updated_at'],
  credit_accounts: ['tenant_id', 'channel', 'balance', 'price', 'created_at', 'updated_at'],
  credit_quotas: ['tenant_id', 'daily_limit', 'monthly_limit', 'updated_at'],
  credit_quota_usage: ['tenant_id', 'period', 'used'],
  contact_lists: [
    'id',
    'tenant_id',
    'name',
    'channel',
    'default_country',
    'member_count',
    'created_at',
    'updated_at',
  ],
  contact_list_members: ['id', 'list_id', 'address', 'variables', 'line_no', 'import_id', 'created_at'],
  contact_list_imports: [
    'id',
    'list_id',
    'source',
    'state',
    'rows_read',
    'rows_accepted',
    'rows_rejected',
    'rows_duplicate',
    'error',
    'started_at',
    'finished_at',
    'created_at',
    'updated_at',
  ],
  contact_list_rejects: ['id', 'import_id', 'line_no', 'reason', 'raw'],
  credit_ledger: [
    'id',
    'tenant_id',
    'channel',
    'kind',
    'amount',
    'balance_after',
    'messages',
    'units',
    'run_id',
    'reference',
    'actor',
    'created_at',
  ],
  test_sends: ['id', 'tenant_id', 'campaign_id', 'request_id', 'actor', 'created_at'],
  test_send_messages: ['test_send_id', 'position', 'recipient', 'message_id'],
  // `messages` column for column, then archived_at (the test 'keeps messages_archive ...' compares types too).
  messages_archive: [
    'id',
    'run_id',
    'campaign_id',
    'tenant_id',
    'contact_id',
    'channel',
    'credential_id',
    'recipient',
    'lane',
    'state',
    'claim_token',
    'claimed_at',
    'attempts',
    'reason',
    'error_code',
    'error_text',
    'idempotency_key',
    'content',
    'sent_at',
    'delivered_at',
    'read_at',
    'failed_at',
    'created_at',
    'updated_at',
    'segments',
    'encoding',
    'charge',
    'archived_at',
  ],
  message_provider_ids_archive: ['message_id', 'provider_message_id'],
};
const SCHEMA_TABLES = Object.keys(EXPECTED_COLUMNS).sort();

// Listed by hand (not read from allMigrations) so that a migration added, dropped or reordered fails here.
const ALL_MIGRATION_NAMES = [
  'InitialSchema1763790000000',
  'MessagesRunRecipientIndex1763834000000',
  'ContactsImportId1763900000000',
  'CredentialsCallbackSecret1764200000000',
  'WebhookSubscriberReplay1764300000000',
  'RunCounterDeltas1764400000000',
  'SubscriberBatchSize1764500000000',
  'DeadLetters1764600000000',
  'DeadLettersReplayedIndex1764700000000',
  'ApiKeysAndAudit1764800000000',
  'CredentialsVerifyToken1764830000000',
  'DeadLettersTenant1764840000000',
  'MessagesFixedWidth1764900000000',
  'IdempotencyKeys1765000000000',
  'RunEvents1765100000000',
  'CredentialRateSeconds1765200000000',
  'CreditsAndSegments1765300000000',
  'CampaignPriority1765320000000',
  'ContactLists1765330000000',
  'TestSends1765340000000',
  'StatusRefresh1765350000000',
  'MessagesArchive1765360000000',
];

/** Unique keys (PRIMARY included) as "name(col,col)". */
const EXPECTED_UNIQUE_KEYS: Record<string, string[]> = {
  credentials: ['PRIMARY(id)'],
  campaigns: ['PRIMARY(id)', 'uq_campaigns_tenant_source_request(tenant_id,source_request_id)'],
  audience_imports: ['PRIMARY(id)'],
  audience_rejects: ['PRIMARY(id)'],
  contacts: ['PRIMARY(id)', 'uq_contacts_campaign_address(campaign_id,address)'],
  opt_outs: ['PRIMARY(tenant_id,channel,address)'],
  runs: ['PRIMARY(id)', 'uq_runs_campaign_fire(campaign_id,fire_at)'],
  messages: [
    'PRIMARY(id)',
    'uq_messages_run_contact(run_id,contact_id)',
    'uq_messages_tenant_idempotency(tenant_id,idempotency_key)',
  ],
  subscribers: ['PRIMARY(id)'],
  deliveries: ['PRIMARY(id)', 'uq_deliveries_subscriber_event(subscriber_id,event_id)'],
  processed_events: ['PRIMARY(consumer,event_id)'],
  run_counter_deltas: ['PRIMARY(id)'],
  dead_letters: [
    'PRIMARY(id)',
    'uq_dead_letters_source(consumer_group,source_topic,source_partition,source_offset)',
  ],
  api_keys: ['PRIMARY(id)'],
  audit_events: ['PRIMARY(id)'],
  message_provider_ids: ['PRIMARY(message_id)'],
  idempotency_keys: ['PRIMARY(tenant_id,route,idem_key)'],
  run_events: ['PRIMARY(id)'],
  credential_rate_seconds: ['PRIMARY(credential_id,second_at)'],
  status_refresh_requests: ['PRIMARY(id)'],
  status_refresh_cursors: ['PRIMARY(state)'],
  credit_accounts: ['PRIMARY(tenant_id,channel)'],
  credit_quotas: ['PRIMARY(tenant_id)'],
  credit_quota_usage: ['PRIMARY(tenant_id,period)'],
  contact_lists: ['PRIMARY(id)'],
  contact_list_members: ['PRIMARY(id)', 'uq_contact_list_members_list_address(list_id,address)'],
  contact_list_imports: ['PRIMARY(id)'],
  contact_list_rejects: ['PRIMARY(id)'],
  credit_ledger: ['PRIMARY(id)', 'uq_credit_ledger_reference(tenant_id,channel,kind,reference)'],
  test_sends: ['PRIMARY(id)', 'uq_test_sends_request(tenant_id,campaign_id,request_id)'],
  test_send_messages: ['PRIMARY(test_send_id,position)'],
  messages_archive: ['PRIMARY(id)'],
  message_provider_ids_archive: ['PRIMARY(message_id)'],
};

/** Secondary (non-unique) indexes the pollers, cursors and lookups rely on. */
const EXPECTED_INDEXES: Record<string, string[]> = {
  credentials: ['idx_credentials_tenant(tenant_id)'],
  campaigns: ['idx_campaigns_credential(credential_id)', 'idx_campaigns_state_next_fire(state,next_fire_at)'],
  audience_imports: ['idx_audience_imports_campaign(campaign_id)'],
  audience_rejects: ['idx_audience_rejects_import_line(import_id,line_no)'],
  contacts: ['idx_contacts_campaign_id(campaign_id,id)'],
  opt_outs: [],
  runs: ['idx_runs_state_checkpoint(state,checkpoint_at)', 'idx_runs_state_fire(state,fire_at)'],
  messages: [
    'idx_messages_run_recipient(run_id,recipient)',
    'idx_messages_run_state(run_id,state)',
    'idx_messages_state_claimed(state,claimed_at)',
  ],
  subscribers: ['idx_subscribers_state(state)', 'idx_subscribers_tenant(tenant_id)'],
  deliveries: [
    'idx_deliveries_state_next_attempt(state,next_attempt_at)',
    'idx_deliveries_subscriber_state_id(subscriber_id,state,id)',
  ],
  processed_events: ['idx_processed_events_processed_at(processed_at)'],
  dead_letters: [
    'idx_dead_letters_error_code(error_code,id)',
    'idx_dead_letters_replayed(replayed_at,source_topic,error_code)',
    'idx_dead_letters_source_topic(source_topic,id)',
    'idx_dead_letters_tenant(tenant_id,id)',
  ],
  api_keys: ['idx_api_keys_tenant(tenant_id,id)'],
  audit_events: ['idx_audit_events_tenant(tenant_id,id)'],
  message_provider_ids: ['idx_message_provider_ids_provider(provider_message_id)'],
  idempotency_keys: ['idx_idempotency_keys_expires(expires_at)'],
  run_events: ['idx_run_events_unpublished(published_at,id)', 'idx_run_events_run(run_id,id)'],
  credential_rate_seconds: ['idx_credential_rate_seconds_at(second_at)'],
  status_refresh_requests: [
    'idx_status_refresh_requests_open(finished_at,id)',
    'idx_status_refresh_requests_run(run_id,id)',
  ],
  credit_ledger: ['idx_credit_ledger_account(tenant_id,channel,id)'],
  contact_lists: ['idx_contact_lists_tenant(tenant_id,id)'],
  contact_list_members: ['idx_contact_list_members_list_id(list_id,id)'],
  contact_list_imports: [
    'idx_contact_list_imports_list(list_id,id)',
    'idx_contact_list_imports_state(state,updated_at)',
  ],
  contact_list_rejects: ['idx_contact_list_rejects_import_line(import_id,line_no)'],
  test_sends: [
    'idx_test_sends_campaign(campaign_id,id)',
    'idx_test_sends_tenant_created(tenant_id,created_at)',
  ],
  messages_archive: [
    'idx_messages_archive_archived_at(archived_at)',
    'idx_messages_archive_run(run_id,id)',
    'idx_messages_archive_tenant_idempotency(tenant_id,idempotency_key)',
  ],
  message_provider_ids_archive: ['idx_message_provider_ids_archive_provider(provider_message_id)'],
};

/** Foreign keys as "table.fk_name". Deliberately none on the bulk-written tables. */
const EXPECTED_FOREIGN_KEYS = [
  'audience_imports.fk_audience_imports_campaign',
  'campaigns.fk_campaigns_credential',
  'contact_list_imports.fk_contact_list_imports_list',
  'runs.fk_runs_campaign',
];

// MariaDB reports CHECK failures as ER_CONSTRAINT_FAILED (4025), MySQL 8 as ER_CHECK_CONSTRAINT_VIOLATED (3819).
const CHECK_VIOLATION_ERRNOS = [4025, 3819];
const DUPLICATE_KEY_ERRNO = 1062;
const NO_REFERENCED_ROW_ERRNO = 1452;

interface TableRow {
  table_name: string;
  engine: string;
  table_collation: string;
}
interface ColumnRow {
  table_name: string;
  column_name: string;
  column_type: string;
  is_nullable: string;
  extra: string;
}
interface IndexRow {
  table_name: string;
  index_name: string;
  non_unique: number | string;
  columns: string;
}
interface ConstraintRow {
  table_name: string;
  constraint_name: string;
}

describe('initial schema migration', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase('ums_migrations');
    ds = createDataSource(database.settings);
    await ds.initialize();
  });

  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
    await database?.drop();
  });

  async function tables(): Promise<TableRow[]> {
    return ds.query(
      `SELECT TABLE_NAME AS table_name, ENGINE AS engine, TABLE_COLLATION AS table_collation
         FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME`,
    );
  }

  async function columns(): Promise<ColumnRow[]> {
    return ds.query(
      `SELECT TABLE_NAME AS table_name, COLUMN_NAME AS column_name, COLUMN_TYPE AS column_type,
              IS_NULLABLE AS is_nullable, EXTRA AS extra
         FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()
        ORDER BY TABLE_NAME, ORDINAL_POSITION`,
    );
  }

  async function indexes(): Promise<IndexRow[]> {
    return ds.query(
      `SELECT TABLE_NAME AS table_name, INDEX_NAME AS index_name, NON_UNIQUE AS non_unique,
              GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX SEPARATOR ',') AS columns
         FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE()
        GROUP BY TABLE_NAME, INDEX_NAME, NON_UNIQUE`,
    );
  }

  async function constraints(type: 'CHECK' | 'FOREIGN KEY'): Promise<ConstraintRow[]> {
    return ds.query(
      `SELECT TABLE_NAME AS table_name, CONSTRAINT_NAME AS constraint_name
         FROM information_schema.TABLE_CONSTRAINTS
        WHERE CONSTRAINT_SCHEMA = DATABASE() AND CONSTRAINT_TYPE = ?`,
      [type],
    );
  }

  function keysOf(rows: IndexRow[], table: string, unique: boolean): string[] {
    return rows
      .filter((row) => row.table_name === table && Number(row.non_unique) === (unique ? 0 : 1))
      .map((row) => `${row.index_name}(${row.columns})`)
      .sort();
  }

  async function expectErrno(work: Promise<unknown>, errnos: number[]): Promise<void> {
    const error: unknown = await work.then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    expect(error).toBeDefined();
    expect(errnos).toContain((error as { errno?: unknown }).errno);
  }

  async function seedCampaign(): Promise<void> {
    await ds.query(
      `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, rate_ceiling_per_sec, rate_floor_per_sec)
       VALUES ('cred-1', 't1', 'sim', 'simulator', 'sms', '{}', 100, 1)`,
    );
    await ds.query(
      `INSERT INTO campaigns (id, tenant_id, name, channel, credential_id, template, schedule_kind, state)
       VALUES ('camp-1', 't1', 'spring', 'sms', 'cred-1', '{"body":"hi"}', 'now', 'ACTIVE')`,
    );
  }

  const insertBulkMessage = (state: string, contactId: number | null = 1, runId: number | null = 1) =>
    ds.query(
      `INSERT INTO messages (run_id, campaign_id, tenant_id, contact_id, channel, credential_id, recipient, lane, state)
       VALUES (?, 'camp-1', 't1', ?, 'sms', 'cred-1', '+15550000001', 'bulk', ?)`,
      [runId, contactId, state],
    );

  it('applies every migration in order', async () => {
    await expect(runPendingMigrations(ds)).resolves.toEqual(ALL_MIGRATION_NAMES);
    await expect(runPendingMigrations(ds)).resolves.toEqual([]);
  });

  it('creates every table as InnoDB utf8mb4_unicode_ci', async () => {
    const rows = await tables();
    expect(rows.map((row) => row.table_name).sort()).toEqual([...SCHEMA_TABLES, MIGRATIONS_TABLE].sort());
    for (const row of rows.filter((candidate) => candidate.table_name !== MIGRATIONS_TABLE)) {
      expect({ table: row.table_name, engine: row.engine, collation: row.table_collation }).toEqual({
        table: row.table_name,
        engine: 'InnoDB',
        collation: 'utf8mb4_unicode_ci',
      });
    }
  });

  it('creates the expected columns', async () => {
    const rows = await columns();
    for (const table of SCHEMA_TABLES) {
      expect({
        table,
        columns: rows.filter((row) => row.table_name === table).map((row) => row.column_name),
      }).toEqual({ table, columns: EXPECTED_COLUMNS[table] });
    }
    const column = (table: string, name: string): ColumnRow | undefined =>
      rows.find((row) => row.table_name === table && row.column_name === name);
    // High-volume ids are auto-increment BIGINT UNSIGNED; exposed ids are generated VARCHAR(64).
    for (const table of [
      'audience_imports',
      'audience_rejects',
      'contacts',
      'runs',
      'messages',
      'deliveries',
    ]) {
      // MySQL 8 omits the display width MariaDB still reports.
      expect(column(table, 'id')).toMatchObject({
        column_type: expect.stringMatching(/^bigint(\(20\))? unsigned$/),
        extra: 'auto_increment',
      });
    }
    for (const table of ['credentials', 'campaigns', 'subscribers']) {
      expect(column(table, 'id')).toMatchObject({ column_type: 'varchar(64)', is_nullable: 'NO' });
    }
    expect(column('runs', 'fire_at')).toMatchObject({ column_type: 'datetime(3)', is_nullable: 'NO' });
    expect(column('messages', 'run_id')).toMatchObject({ is_nullable: 'YES' });
    expect(column('messages', 'campaign_id')).toMatchObject({
      column_type: 'varchar(64)',
      is_nullable: 'NO',
    });
    expect(column('deliveries', 'payload')).toMatchObject({ column_type: 'mediumtext' });
  });

  it('creates the unique keys and indexes', async () => {
    const rows = await indexes();
    for (const table of SCHEMA_TABLES) {
      expect({ table, unique: keysOf(rows, table, true) }).toEqual({
        table,
        unique: [...(EXPECTED_UNIQUE_KEYS[table] ?? [])].sort(),
      });
      // Foreign keys reuse the declared indexes, so no implicit index may appear either.
      expect({ table, indexes: keysOf(rows, table, false) }).toEqual({
        table,
        indexes: [...(EXPECTED_INDEXES[table] ?? [])].sort(),
      });
    }
  });

  it('declares foreign keys only between low-volume tables', async () => {
    const rows = await constraints('FOREIGN KEY');
    expect(rows.map((row) => `${row.table_name}.${row.constraint_name}`).sort()).toEqual(
      EXPECTED_FOREIGN_KEYS,
    );
  });

  it('declares named CHECK constraints on every state column', async () => {
    // MariaDB also lists the implicit JSON_VALID checks of JSON columns; only ours carry the chk_ prefix.
    const names = (await constraints('CHECK'))
      .map((row) => row.constraint_name)
      .filter((name) => name.startsWith('chk_'));
    expect(names).toEqual(
      expect.arrayContaining([
        'chk_campaigns_state',
        'chk_campaigns_priority',
        'chk_audience_imports_state',
        'chk_runs_state',
        'chk_messages_state',
        'chk_subscribers_state',
        'chk_subscribers_max_events_per_request',
        'chk_deliveries_state',
        'chk_dead_letters_value_encoding',
        'chk_idempotency_keys_state',
        'chk_run_events_event',
        'chk_credit_accounts_channel',
        'chk_credit_accounts_balance',
        'chk_credit_ledger_channel',
        'chk_credit_ledger_kind',
        'chk_contact_lists_channel',
        'chk_contact_list_imports_state',
      ]),
    );
  });

  it('enforces CHECK constraints, unique keys and foreign keys', async () => {
    await seedCampaign();

    // Foreign keys on the configuration tables.
    await expectErrno(
      ds.query(
        `INSERT INTO campaigns (id, tenant_id, name, channel, credential_id, template, schedule_kind)
         VALUES ('camp-x', 't1', 'orphan', 'sms', 'no-such-credential', '{}', 'now')`,
      ),
      [NO_REFERENCED_ROW_ERRNO],
    );

    // Campaign checks: unknown state, 'at' without schedule_at, idempotent source request.
    await expectErrno(
      ds.query(`UPDATE campaigns SET state = 'BOGUS' WHERE id = 'camp-1'`),
      CHECK_VIOLATION_ERRNOS,
    );
    await expectErrno(
      ds.query(`UPDATE campaigns SET schedule_kind = 'at', schedule_at = NULL WHERE id = 'camp-1'`),
      CHECK_VIOLATION_ERRNOS,
    );
    const insertSourced = (id: string) =>
      ds.query(
        `INSERT INTO campaigns (id, tenant_id, name, channel, credential_id, template, schedule_kind, source_request_id)
         VALUES (?, 't1', 'bulk', 'sms', 'cred-1', '{}', 'now', 'req-1')`,
        [id],
      );
    await insertSourced('camp-2');
    await expectErrno(insertSourced('camp-3'), [DUPLICATE_KEY_ERRNO]);

    // One run per (campaign, fire time).
    const insertRun = () =>
      ds.query(`INSERT INTO runs (campaign_id, fire_at) VALUES ('camp-1', '2030-01-01 00:00:00.000')`);
    await insertRun();
    await expectErrno(insertRun(), [DUPLICATE_KEY_ERRNO]);
    await expectErrno(ds.query(`UPDATE runs SET state = 'BOGUS'`), CHECK_VIOLATION_ERRNOS);

    // Messages: state CHECK, one message per (run, contact), run_id and contact_id set together.
    await expectErrno(insertBulkMessage('BOGUS'), CHECK_VIOLATION_ERRNOS);
    await insertBulkMessage('PENDING');
    await expectErrno(insertBulkMessage('PENDING'), [DUPLICATE_KEY_ERRNO]);
    await expectErrno(insertBulkMessage('PENDING', null), CHECK_VIOLATION_ERRNOS);

    // Single sends dedupe on (tenant_id, idempotency_key); NULL keys never collide.
    const insertSingle = (key: string | null) =>
      ds.query(
        `INSERT INTO messages (campaign_id, tenant_id, channel, credential_id, recipient, lane, idempotency_key, content)
         VALUES ('req-9', 't1', 'sms', 'cred-1', '+15550000002', 'priority', ?, '{"body":"x"}')`,
        [key],
      );
    await insertSingle('req-9');
    await expectErrno(insertSingle('req-9'), [DUPLICATE_KEY_ERRNO]);
    await insertSingle(null);
    await insertSingle(null);

    // Contacts dedupe within a campaign's audience.
    const insertContact = () =>
      ds.query(`INSERT INTO contacts (campaign_id, address) VALUES ('camp-1', '+15550000001')`);
    await insertContact();
    await expectErrno(insertContact(), [DUPLICATE_KEY_ERRNO]);

    // Other state columns.
    await expectErrno(
      ds.query(
        `INSERT INTO subscribers (id, tenant_id, url, event_types, secret, state)
         VALUES ('sub-1', 't1', 'https://example.test/hook', '[]', 's3cret', 'BOGUS')`,
      ),
      CHECK_VIOLATION_ERRNOS,
    );
    await expectErrno(
      ds.query(
        `INSERT INTO subscribers (id, tenant_id, url, event_types, secret, max_events_per_request)
         VALUES ('sub-2', 't1', 'https://example.test/hook', '[]', 's3cret', 501)`,
      ),
      CHECK_VIOLATION_ERRNOS,
    );
    await expectErrno(
      ds.query(
        `INSERT INTO deliveries (subscriber_id, event_id, event_type, payload, state)
         VALUES ('sub-1', 'evt-1', 'message.status', '{}', 'BOGUS')`,
      ),
      CHECK_VIOLATION_ERRNOS,
    );
    const insertDelivery = () =>
      ds.query(
        `INSERT INTO deliveries (subscriber_id, event_id, event_type, payload)
         VALUES ('sub-1', 'evt-1', 'message.status', '{}')`,
      );
    await insertDelivery();
    await expectErrno(insertDelivery(), [DUPLICATE_KEY_ERRNO]);

    // Credits: balances never go negative, ledger kinds are closed, a reference is used once per kind.
    await ds.query(
      `INSERT INTO credit_accounts (tenant_id, channel, balance, price) VALUES ('t1', 'sms', 5, 2)`,
    );
    await expectErrno(
      ds.query(`UPDATE credit_accounts SET balance = balance - 6 WHERE tenant_id = 't1'`),
      CHECK_VIOLATION_ERRNOS,
    );
    await expectErrno(
      ds.query(`INSERT INTO credit_accounts (tenant_id, channel) VALUES ('t1', 'fax')`),
      CHECK_VIOLATION_ERRNOS,
    );
    const insertLedger = (kind: string, reference: string | null) =>
      ds.query(
        `INSERT INTO credit_ledger (tenant_id, channel, kind, amount, balance_after, reference)
         VALUES ('t1', 'sms', ?, 5, 5, ?)`,
        [kind, reference],
      );
    await expectErrno(insertLedger('BOGUS', null), CHECK_VIOLATION_ERRNOS);
    await insertLedger('TOP_UP', 'order-1');
    await expectErrno(insertLedger('TOP_UP', 'order-1'), [DUPLICATE_KEY_ERRNO]);
    await insertLedger('ADJUST', 'order-1');
    await insertLedger('REFUND', null);
    await insertLedger('REFUND', null);

    // Defaults are UTC timestamps, whatever the session time zone (one pinned connection for SET).
    const runner = ds.createQueryRunner();
    try {
      await runner.query(`SET time_zone = '+05:00'`);
      await runner.query(`INSERT INTO processed_events (consumer, event_id) VALUES ('test', 'evt-1')`);
      const [row] = (await runner.query(
        `SELECT ABS(TIMESTAMPDIFF(SECOND, processed_at, UTC_TIMESTAMP(3))) AS drift FROM processed_events`,
      )) as { drift: string | number }[];
      expect(Number(row?.drift)).toBeLessThan(60);
    } finally {
      await runner.query(`SET time_zone = DEFAULT`);
      await runner.release();
    }
  });

  it('keeps messages_archive column for column like messages (names, types, order), then archived_at', async () => {
    // A migration that changes `messages` must change `messages_archive` alike (see migrations/index.ts):
    // the archiver copies rows column for column.
    const rows = await columns();
    const shape = (table: string) =>
      rows
        .filter((row) => row.table_name === table)
        .map((row) => `${row.column_name} ${row.column_type} ${row.is_nullable}`);
    const archive = shape('messages_archive');
    expect(archive.at(-1)).toMatch(/^archived_at datetime\(3\) NO$/);
    expect(archive.slice(0, -1)).toEqual(shape('messages'));
    // Ids come from `messages`: the archive assigns none.
    expect(rows.find((r) => r.table_name === 'messages_archive' && r.column_name === 'id')?.extra).toBe('');
  });

  it('reverts every table, leaving only the migrations bookkeeping table', async () => {
    await expect(revertAllMigrations(ds)).resolves.toBe(ALL_MIGRATION_NAMES.length);
    expect((await tables()).map((row) => row.table_name)).toEqual([MIGRATIONS_TABLE]);
    await expect(revertAllMigrations(ds)).resolves.toBe(0);
  });

  it('applies again after a full revert', async () => {
    await expect(runPendingMigrations(ds)).resolves.toEqual(ALL_MIGRATION_NAMES);
    expect((await tables()).map((row) => row.table_name).sort()).toEqual(
      [...SCHEMA_TABLES, MIGRATIONS_TABLE].sort(),
    );
  });
});
