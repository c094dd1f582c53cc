import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { AllTopics } from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  bearer,
  createTenantKey,
  createTestDatabase,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  testKafka,
} from '@ums/testing';
import type { DataSource } from 'typeorm';

jest.setTimeout(180_000);

/** A body sent as it is, with its Content-Type (none when undefined). */
class Raw {
  constructor(
    readonly body: string | Buffer,
    readonly contentType?: string,
  ) {}
}

interface Ids {
  readonly campaignId: string;
  readonly importId: string;
}

/** One hostile request and the refusal it must get: status, code and (for 400s) the field named. */
interface Case {
  readonly name: string;
  readonly method: 'GET' | 'POST';
  readonly path: (ids: Ids) => string;
  readonly body?: unknown;
  readonly status: number;
  readonly code: string;
  readonly field?: string;
}

const valid = {
  name: 'Spring sale',
  channel: 'sms',
  credentialId: 'cred-sms',
  template: { text: 'Hi {{first_name}}' },
  schedule: { kind: 'now' },
};
const withField = (over: Record<string, unknown>): Record<string, unknown> => ({ ...valid, ...over });
const whatsapp = (template: Record<string, unknown>): Record<string, unknown> =>
  withField({ channel: 'whatsapp', credentialId: 'cred-whatsapp', template });
const deep = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const rawValid = JSON.stringify(valid);

type Row = [name: string, body: unknown, status: number, code: string, field?: string];

/** The JSON-body refusals every JSON route gives, whatever its DTO. */
function bodyRows(validBody: string): Row[] {
  return [
    ['text/plain body', new Raw(validBody, 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['form body', new Raw('name=x', 'application/x-www-form-urlencoded'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    [
      'multipart body',
      new Raw('--x--\r\n', 'multipart/form-data; boundary=x'),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    ['XML body', new Raw('<a/>', 'application/xml'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['body without a Content-Type', new Raw(validBody), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    [
      'JSON in Latin-1',
      new Raw(validBody, 'application/json; charset=iso-8859-1'),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    ['malformed JSON', new Raw('{"name": "x",}', 'application/json'), 400, 'BODY_INVALID', 'body'],
    ['empty JSON body', new Raw('', 'application/json'), 400, 'BODY_INVALID', 'body'],
    [
      'bytes that are not UTF-8',
      new Raw(Buffer.from('{"name":"\xff"}', 'latin1'), 'application/json'),
      400,
      'BODY_INVALID',
      'body',
    ],
    ['a JSON array', [valid], 400, 'VALIDATION_FAILED', 'body'],
    ['a JSON string', 'text', 400, 'VALIDATION_FAILED', 'body'],
    ['JSON null', null, 400, 'VALIDATION_FAILED', 'body'],
    [
      'a __proto__ key',
      new Raw('{"__proto__":{"admin":true}}', 'application/json'),
      400,
      'BODY_INVALID',
      '__proto__',
    ],
    [
      'constructor.prototype',
      new Raw('{"constructor":{"prototype":{}}}', 'application/json'),
      400,
      'BODY_INVALID',
      'constructor.prototype',
    ],
    ['nesting 10,000 deep', new Raw(`{"x":${deep(10_000)}}`, 'application/json'), 400, 'VALIDATION_FAILED'],
  ];
}

const CREATE_ROWS: Row[] = [
  ...bodyRows(rawValid),
  [
    'a __proto__ key in the template',
    new Raw(rawValid.replace('"template":{', '"template":{"__proto__":{},'), 'application/json'),
    400,
    'BODY_INVALID',
    'template.__proto__',
  ],
  [
    'a lone surrogate in the name',
    new Raw(rawValid.replace('Spring sale', 'Spring \\ud800'), 'application/json'),
    400,
    'VALIDATION_FAILED',
    'name',
  ],
  ['tenantId in the body', withField({ tenantId: 't2' }), 400, 'VALIDATION_FAILED', 'tenantId'],
  ['an unknown field', withField({ priority: 'high' }), 400, 'VALIDATION_FAILED', 'priority'],
  ['name: 100,000 characters', withField({ name: 'x'.repeat(100_000) }), 400, 'VALIDATION_FAILED', 'name'],
  ['name: empty', withField({ name: '' }), 400, 'VALIDATION_FAILED', 'name'],
  ['name: spaces only', withField({ name: '   ' }), 400, 'VALIDATION_FAILED', 'name'],
  ['name: NUL', withField({ name: 'a\u0000b' }), 400, 'VALIDATION_FAILED', 'name'],
  ['name: a line break', withField({ name: 'two\nlines' }), 400, 'VALIDATION_FAILED', 'name'],
  ['name: terminal escapes', withField({ name: '\u001b[2J' }), 400, 'VALIDATION_FAILED', 'name'],
  ['name: a number', withField({ name: 42 }), 400, 'VALIDATION_FAILED', 'name'],
  ['name: an array', withField({ name: ['a'] }), 400, 'VALIDATION_FAILED', 'name'],
  ['name: an object', withField({ name: { a: 1 } }), 400, 'VALIDATION_FAILED', 'name'],
  ['name: null', withField({ name: null }), 400, 'VALIDATION_FAILED', 'name'],
  ['channel: unknown', withField({ channel: 'fax' }), 400, 'VALIDATION_FAILED', 'channel'],
  ['channel: upper case', withField({ channel: 'SMS' }), 400, 'VALIDATION_FAILED', 'channel'],
  ['channel: an array', withField({ channel: ['sms'] }), 400, 'VALIDATION_FAILED', 'channel'],
  ['credentialId: empty', withField({ credentialId: '' }), 400, 'VALIDATION_FAILED', 'credentialId'],
  [
    'credentialId: 65 characters',
    withField({ credentialId: 'c'.repeat(65) }),
    400,
    'VALIDATION_FAILED',
    'credentialId',
  ],
  ['credentialId: a number', withField({ credentialId: 7 }), 400, 'VALIDATION_FAILED', 'credentialId'],
  [
    'credentialId: unknown',
    withField({ credentialId: 'cred-nope' }),
    400,
    'CREDENTIAL_NOT_FOUND',
    'credentialId',
  ],
  [
    'credentialId: another tenant',
    withField({ credentialId: 'cred-other' }),
    400,
    'CREDENTIAL_NOT_FOUND',
    'credentialId',
  ],
  ['template: an array', withField({ template: [{ text: 'Hi' }] }), 400, 'VALIDATION_FAILED', 'template'],
  ['template: a string', withField({ template: 'Hi' }), 400, 'VALIDATION_FAILED', 'template'],
  ['template: null', withField({ template: null }), 400, 'VALIDATION_FAILED', 'template'],
  ['template: empty for sms', withField({ template: {} }), 400, 'VALIDATION_FAILED', 'template.text'],
  [
    'template: a name for sms',
    withField({ template: { text: 'Hi', templateName: 'promo' } }),
    400,
    'TEMPLATE_INVALID',
    'template.templateName',
  ],
  [
    'template.text: 4,097 characters',
    withField({ template: { text: 'x'.repeat(4097) } }),
    400,
    'VALIDATION_FAILED',
    'template.text',
  ],
  [
    'template.text: a bell',
    withField({ template: { text: 'Hi\u0007' } }),
    400,
    'TEMPLATE_INVALID',
    'template.text',
  ],
  [
    'template.text: an unclosed placeholder',
    withField({ template: { text: 'Hi {{name' } }),
    400,
    'TEMPLATE_INVALID',
    'template.text',
  ],
  [
    'template.text: a bad variable name',
    withField({ template: { text: 'Hi {{a b}}' } }),
    400,
    'TEMPLATE_INVALID',
    'template.text',
  ],
  [
    'template.text: an unknown field',
    withField({ template: { text: 'Hi', html: '<b>' } }),
    400,
    'VALIDATION_FAILED',
    'template.html',
  ],
  [
    'template.subject: a header break',
    withField({
      channel: 'email',
      credentialId: 'cred-email',
      template: { text: 'Hi', subject: 'Hi\r\nBcc: x@example.com' },
    }),
    400,
    'TEMPLATE_INVALID',
    'template.subject',
  ],
  [
    'template.templateParameters: an object',
    whatsapp({ templateName: 'promo', templateParameters: { a: 'b' } }),
    400,
    'VALIDATION_FAILED',
    'template.templateParameters',
  ],
  [
    'template.templateParameters: numbers',
    whatsapp({ templateName: 'promo', templateParameters: [1] }),
    400,
    'VALIDATION_FAILED',
    'template.templateParameters',
  ],
  [
    'template.templateParameters: 51 of them',
    whatsapp({ templateName: 'promo', templateParameters: Array(51).fill('x') }),
    400,
    'VALIDATION_FAILED',
    'template.templateParameters',
  ],
  [
    'template.templateParameters: a line break',
    whatsapp({ templateName: 'promo', templateParameters: ['a\nb'] }),
    400,
    'TEMPLATE_INVALID',
    'template.templateParameters[0]',
  ],
  [
    'template.templateLanguage: 17 characters',
    whatsapp({ templateName: 'promo', templateLanguage: 'x'.repeat(17) }),
    400,
    'VALIDATION_FAILED',
    'template.templateLanguage',
  ],
  [
    'defaultCountry: unknown',
    withField({ defaultCountry: 'XX' }),
    400,
    'VALIDATION_FAILED',
    'defaultCountry',
  ],
  [
    'defaultCountry: three letters',
    withField({ defaultCountry: 'DEU' }),
    400,
    'VALIDATION_FAILED',
    'defaultCountry',
  ],
  ['defaultCountry: a number', withField({ defaultCountry: 49 }), 400, 'VALIDATION_FAILED', 'defaultCountry'],
  ['schedule: an array', withField({ schedule: [{ kind: 'now' }] }), 400, 'VALIDATION_FAILED', 'schedule'],
  ['schedule: a string', withField({ schedule: 'now' }), 400, 'VALIDATION_FAILED', 'schedule'],
  ['schedule: missing', withField({ schedule: undefined }), 400, 'VALIDATION_FAILED', 'schedule'],
  ['schedule.kind: missing', withField({ schedule: {} }), 400, 'VALIDATION_FAILED', 'schedule.kind'],
  [
    'schedule.kind: unknown',
    withField({ schedule: { kind: 'weekly' } }),
    400,
    'VALIDATION_FAILED',
    'schedule.kind',
  ],
  [
    'schedule.kind: an array',
    withField({ schedule: { kind: ['now'] } }),
    400,
    'VALIDATION_FAILED',
    'schedule.kind',
  ],
  [
    'schedule.timeZone: not IANA (now)',
    withField({ schedule: { kind: 'now', timeZone: 'Mars/Olympus' } }),
    400,
    'SCHEDULE_INVALID',
    'schedule.timeZone',
  ],
  [
    'schedule.timeZone: an offset (at)',
    withField({ schedule: { kind: 'at', at: '2099-01-01T00:00:00Z', timeZone: '+02:00' } }),
    400,
    'SCHEDULE_INVALID',
    'schedule.timeZone',
  ],
  [
    'schedule.timeZone: a path',
    withField({ schedule: { kind: 'now', timeZone: '../../etc/passwd' } }),
    400,
    'SCHEDULE_INVALID',
    'schedule.timeZone',
  ],
  [
    'schedule.timeZone: 65 characters',
    withField({ schedule: { kind: 'now', timeZone: 'E'.repeat(65) } }),
    400,
    'VALIDATION_FAILED',
    'schedule.timeZone',
  ],
  ['schedule.at: missing', withField({ schedule: { kind: 'at' } }), 400, 'VALIDATION_FAILED', 'schedule.at'],
  [
    'schedule.at: in 2001',
    withField({ schedule: { kind: 'at', at: '2001-01-01T00:00:00Z' } }),
    400,
    'SCHEDULE_INVALID',
    'schedule.at',
  ],
  [
    'schedule.at: no UTC offset',
    withField({ schedule: { kind: 'at', at: '2099-01-01T09:00:00' } }),
    400,
    'SCHEDULE_INVALID',
    'schedule.at',
  ],
  [
    'schedule.at: a date only',
    withField({ schedule: { kind: 'at', at: '2099-01-01' } }),
    400,
    'SCHEDULE_INVALID',
    'schedule.at',
  ],
  [
    'schedule.at: 30 February',
    withField({ schedule: { kind: 'at', at: '2099-02-30T09:00:00Z' } }),
    400,
    'SCHEDULE_INVALID',
    'schedule.at',
  ],
  [
    'schedule.at: year 275760',
    withField({ schedule: { kind: 'at', at: '+275760-09-13T00:00:00Z' } }),
    400,
    'SCHEDULE_INVALID',
    'schedule.at',
  ],
  [
    'schedule.at: words',
    withField({ schedule: { kind: 'at', at: 'tomorrow' } }),
    400,
    'SCHEDULE_INVALID',
    'schedule.at',
  ],
  [
    'schedule.at: epoch milliseconds',
    withField({ schedule: { kind: 'at', at: 4102444800000 } }),
    400,
    'VALIDATION_FAILED',
    'schedule.at',
  ],
  [
    'schedule.at: 100 characters',
    withField({ schedule: { kind: 'at', at: '2'.repeat(100) } }),
    400,
    'VALIDATION_FAILED',
    'schedule.at',
  ],
  [
    'schedule.at: on kind now',
    withField({ schedule: { kind: 'now', at: '2099-01-01T00:00:00Z' } }),
    400,
    'SCHEDULE_INVALID',
    'schedule.at',
  ],
  [
    'schedule.cron: on kind now',
    withField({ schedule: { kind: 'now', cron: '* * * * *' } }),
    400,
    'SCHEDULE_INVALID',
    'schedule.cron',
  ],
  [
    'schedule.cron: 200 characters',
    withField({ schedule: { kind: 'cron', cron: `${'1,'.repeat(98)}1 * * * *` } }),
    400,
    'VALIDATION_FAILED',
    'schedule.cron',
  ],
  [
    'schedule.cron: six fields',
    withField({ schedule: { kind: 'cron', cron: '0 0 9 * * *' } }),
    400,
    'SCHEDULE_INVALID',
    'schedule.cron',
  ],
  [
    'schedule.cron: a macro',
    withField({ schedule: { kind: 'cron', cron: '@daily' } }),
    400,
    'SCHEDULE_INVALID',
    'schedule.cron',
  ],
  [
    'schedule.cron: out of range',
    withField({ schedule: { kind: 'cron', cron: '61 * * * *' } }),
    400,
    'SCHEDULE_INVALID',
    'schedule.cron',
  ],
  [
    'schedule.cron: 30 February',
    withField({ schedule: { kind: 'cron', cron: '0 9 30 2 *' } }),
    400,
    'SCHEDULE_INVALID',
    'schedule.cron',
  ],
  [
    'schedule.cron: empty',
    withField({ schedule: { kind: 'cron', cron: '' } }),
    400,
    'VALIDATION_FAILED',
    'schedule.cron',
  ],
  [
    'schedule.cron: a number',
    withField({ schedule: { kind: 'cron', cron: 5 } }),
    400,
    'VALIDATION_FAILED',
    'schedule.cron',
  ],
];

const recipient = { address: '+4915112345678', variables: { first_name: 'Ada' } };
const INLINE_ROWS: Row[] = [
  ...bodyRows(JSON.stringify({ recipients: [recipient] })),
  ['recipients: missing', {}, 400, 'VALIDATION_FAILED', 'recipients'],
  ['recipients: an object', { recipients: recipient }, 400, 'VALIDATION_FAILED', 'recipients'],
  ['recipients: empty', { recipients: [] }, 400, 'VALIDATION_FAILED', 'recipients'],
  [
    'recipients: 10,001',
    { recipients: Array(10_001).fill({ address: '+4915112345678' }) },
    400,
    'VALIDATION_FAILED',
    'recipients',
  ],
  ['recipients[0]: null', { recipients: [null] }, 400, 'VALIDATION_FAILED', 'recipients[0]'],
  ['recipients[0]: a string', { recipients: ['+4915112345678'] }, 400, 'VALIDATION_FAILED', 'recipients[0]'],
  [
    'recipients[0].address: a number',
    { recipients: [{ address: 4915112345678 }] },
    400,
    'VALIDATION_FAILED',
    'recipients[0].address',
  ],
  [
    'recipients[0].address: 400 characters',
    { recipients: [{ address: '1'.repeat(400) }] },
    400,
    'VALIDATION_FAILED',
    'recipients[0].address',
  ],
  [
    'recipients[0].variables: an array',
    { recipients: [{ ...recipient, variables: ['Ada'] }] },
    400,
    'VALIDATION_FAILED',
    'recipients[0].variables',
  ],
  [
    'recipients[0].variables: a number value',
    { recipients: [{ ...recipient, variables: { first_name: 1 } }] },
    400,
    'VALIDATION_FAILED',
    'recipients[0].variables',
  ],
  [
    'recipients[0].variables: a nested object',
    { recipients: [{ ...recipient, variables: { first_name: { a: 'b' } } }] },
    400,
    'VALIDATION_FAILED',
    'recipients[0].variables',
  ],
  [
    'recipients[0].variables: 51 of them',
    {
      recipients: [
        { ...recipient, variables: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`v${i}`, 'x'])) },
      ],
    },
    400,
    'VALIDATION_FAILED',
    'recipients[0].variables',
  ],
  [
    'recipients[0].variables: a __proto__ key',
    new Raw(
      '{"recipients":[{"address":"+4915112345678","variables":{"first_name":"A","__proto__":"x"}}]}',
      'application/json',
    ),
    400,
    'BODY_INVALID',
    'recipients[0].variables.__proto__',
  ],
  [
    'recipients[0].variables: a lone surrogate',
    new Raw(
      '{"recipients":[{"address":"+4915112345678","variables":{"first_name":"\\udc00"}}]}',
      'application/json',
    ),
    400,
    'VALIDATION_FAILED',
    'recipients[0].variables.first_name',
  ],
  [
    'recipients[0]: an unknown field',
    { recipients: [{ ...recipient, email: 'x@example.com' }] },
    400,
    'VALIDATION_FAILED',
    'recipients[0].email',
  ],
];

const URL_ROWS: Row[] = [
  ...bodyRows(JSON.stringify({ url: 'https://files.example/a.csv' })),
  ['url: missing', {}, 400, 'VALIDATION_FAILED', 'url'],
  ['url: a number', { url: 5 }, 400, 'VALIDATION_FAILED', 'url'],
  ['url: an array', { url: ['https://files.example/a.csv'] }, 400, 'VALIDATION_FAILED', 'url'],
  ['url: ftp', { url: 'ftp://files.example/a.csv' }, 400, 'VALIDATION_FAILED', 'url'],
  ['url: javascript', { url: 'javascript:alert(1)' }, 400, 'VALIDATION_FAILED', 'url'],
  ['url: a file path', { url: 'file:///etc/passwd' }, 400, 'VALIDATION_FAILED', 'url'],
  [
    'url: 3,000 characters',
    { url: `https://files.example/${'a'.repeat(3000)}` },
    400,
    'VALIDATION_FAILED',
    'url',
  ],
];

const REPLAY_ROWS: Row[] = [
  ...bodyRows(JSON.stringify({ ids: ['1'] })),
  ['neither ids nor filters', {}, 400, 'REPLAY_SELECTION_INVALID'],
  ['ids: empty', { ids: [] }, 400, 'VALIDATION_FAILED', 'ids'],
  ['ids: a string', { ids: '1' }, 400, 'VALIDATION_FAILED', 'ids'],
  ['ids: not decimal', { ids: ['1; DROP TABLE dead_letters'] }, 400, 'VALIDATION_FAILED', 'ids'],
  ['ids: past BIGINT', { ids: ['18446744073709551616'] }, 400, 'VALIDATION_FAILED', 'ids'],
  ['ids: negative numbers', { ids: [-1] }, 400, 'VALIDATION_FAILED', 'ids'],
  [
    'ids: 501 of them',
    { ids: Array.from({ length: 501 }, (_, i) => String(i + 1)) },
    400,
    'VALIDATION_FAILED',
    'ids',
  ],
  ['limit: negative', { errorCode: 'X', limit: -5 }, 400, 'VALIDATION_FAILED', 'limit'],
  ['limit: huge', { errorCode: 'X', limit: 1e308 }, 400, 'VALIDATION_FAILED', 'limit'],
  ['limit: a string', { errorCode: 'X', limit: '5' }, 400, 'VALIDATION_FAILED', 'limit'],
  [
    'includeReplayed: a string',
    { errorCode: 'X', includeReplayed: 'yes' },
    400,
    'VALIDATION_FAILED',
    'includeReplayed',
  ],
  ['errorCode: 65 characters', { errorCode: 'E'.repeat(65) }, 400, 'VALIDATION_FAILED', 'errorCode'],
];

function postCases(route: string, path: (ids: Ids) => string, rows: readonly Row[]): Case[] {
  return rows.map(([what, body, status, code, field]) => ({
    name: `POST ${route}: ${what}`,
    method: 'POST',
    path,
    body,
    status,
    code,
    field,
  }));
}

/** [path with a bad part, status, code, field]: query strings and path segments. */
type GetRow = [path: (ids: Ids) => string, status: number, code: string, field?: string];

const campaign = (ids: Ids): string => `/v1/campaigns/${ids.campaignId}`;
const audience = (ids: Ids): string => `${campaign(ids)}/audience`;
const GET_ROWS: GetRow[] = [
  [() => '/v1/campaigns?limit=abc', 400, 'VALIDATION_FAILED', 'limit'],
  [() => '/v1/campaigns?limit=0', 400, 'VALIDATION_FAILED', 'limit'],
  [() => '/v1/campaigns?limit=-1', 400, 'VALIDATION_FAILED', 'limit'],
  [() => '/v1/campaigns?limit=501', 400, 'VALIDATION_FAILED', 'limit'],
  [() => '/v1/campaigns?limit=1e308', 400, 'VALIDATION_FAILED', 'limit'],
  [() => '/v1/campaigns?limit=1.5', 400, 'VALIDATION_FAILED', 'limit'],
  [() => '/v1/campaigns?limit=1&limit=2', 400, 'VALIDATION_FAILED', 'limit'],
  [() => '/v1/campaigns?after=%00', 400, 'VALIDATION_FAILED', 'after'],
  [() => `/v1/campaigns?after=${'a'.repeat(65)}`, 400, 'VALIDATION_FAILED', 'after'],
  [() => '/v1/campaigns?tenantId=t2', 400, 'VALIDATION_FAILED', 'tenantId'],
  [() => '/v1/campaigns?sql=1', 400, 'VALIDATION_FAILED', 'sql'],
  [() => `/v1/campaigns/${'c'.repeat(65)}`, 400, 'VALIDATION_FAILED', 'campaignId'],
  [() => '/v1/campaigns/a%00b', 400, 'VALIDATION_FAILED', 'campaignId'],
  [() => '/v1/campaigns/..%2F..%2Fetc', 400, 'VALIDATION_FAILED', 'campaignId'],
  [() => "/v1/campaigns/x'%20OR%201=1", 400, 'VALIDATION_FAILED', 'campaignId'],
  [(ids) => `${audience(ids)}/imports?limit=0`, 400, 'VALIDATION_FAILED', 'limit'],
  [(ids) => `${audience(ids)}/imports?limit=101`, 400, 'VALIDATION_FAILED', 'limit'],
  [(ids) => `${audience(ids)}/imports?before=0`, 400, 'VALIDATION_FAILED', 'before'],
  [(ids) => `${audience(ids)}/imports?before=-1`, 400, 'VALIDATION_FAILED', 'before'],
  [(ids) => `${audience(ids)}/imports?before=${'9'.repeat(21)}`, 400, 'VALIDATION_FAILED', 'before'],
  [(ids) => `${audience(ids)}/imports/abc`, 400, 'VALIDATION_FAILED', 'importId'],
  [(ids) => `${audience(ids)}/imports/1.5`, 400, 'VALIDATION_FAILED', 'importId'],
  [(ids) => `${audience(ids)}/imports/${'9'.repeat(21)}`, 400, 'VALIDATION_FAILED', 'importId'],
  [(ids) => `${audience(ids)}/imports/${ids.importId}/rejects?after=-1`, 400, 'VALIDATION_FAILED', 'after'],
  [(ids) => `${audience(ids)}/imports/${ids.importId}/rejects?after=1e30`, 400, 'VALIDATION_FAILED', 'after'],
  [(ids) => `${audience(ids)}/imports/${ids.importId}/rejects?after=x`, 400, 'VALIDATION_FAILED', 'after'],
  [(ids) => `${audience(ids)}/imports/${ids.importId}/rejects?limit=1001`, 400, 'VALIDATION_FAILED', 'limit'],
  [(ids) => `${audience(ids)}/imports/${ids.importId}/rejects?limit=0`, 400, 'VALIDATION_FAILED', 'limit'],
  [(ids) => `${campaign(ids)}/runs?limit=0`, 400, 'VALIDATION_FAILED', 'limit'],
  [(ids) => `${campaign(ids)}/runs?limit=abc`, 400, 'VALIDATION_FAILED', 'limit'],
  [(ids) => `${campaign(ids)}/runs?before=-1`, 400, 'VALIDATION_FAILED', 'before'],
  [(ids) => `${campaign(ids)}/runs/abc`, 400, 'VALIDATION_FAILED', 'runId'],
  [(ids) => `${campaign(ids)}/runs/-1`, 400, 'VALIDATION_FAILED', 'runId'],
  [(ids) => `${campaign(ids)}/runs/${'9'.repeat(21)}`, 400, 'VALIDATION_FAILED', 'runId'],
  [(ids) => `${campaign(ids)}/runs/1/messages?state=NOPE`, 400, 'VALIDATION_FAILED', 'state'],
  [(ids) => `${campaign(ids)}/runs/1/messages?state=,`, 400, 'VALIDATION_FAILED', 'state'],
  [(ids) => `${campaign(ids)}/runs/1/messages?limit=0`, 400, 'VALIDATION_FAILED', 'limit'],
  [(ids) => `${campaign(ids)}/runs/1/messages?limit=100000`, 400, 'VALIDATION_FAILED', 'limit'],
  [(ids) => `${campaign(ids)}/runs/1/messages?after=abc`, 400, 'VALIDATION_FAILED', 'after'],
  [
    (ids) => `${campaign(ids)}/runs/1/messages?recipient=${'x'.repeat(400)}`,
    400,
    'VALIDATION_FAILED',
    'recipient',
  ],
  [(ids) => `${campaign(ids)}/runs/18446744073709551616/messages`, 400, 'VALIDATION_FAILED', 'runId'],
  [(ids) => `${campaign(ids)}/runs/1/messages/export.csv?state=NOPE`, 400, 'VALIDATION_FAILED', 'state'],
  [() => '/v1/messages/abc', 400, 'VALIDATION_FAILED', 'id'],
  [() => '/v1/messages/18446744073709551616', 400, 'VALIDATION_FAILED', 'id'],
  [() => `/v1/messages?idempotencyKey=${'k'.repeat(200)}`, 400, 'VALIDATION_FAILED', 'idempotencyKey'],
  [() => '/v1/dead-letters?limit=abc', 400, 'VALIDATION_FAILED', 'limit'],
  [() => '/v1/dead-letters?limit=501', 400, 'VALIDATION_FAILED', 'limit'],
  [() => '/v1/dead-letters?replayed=maybe', 400, 'VALIDATION_FAILED', 'replayed'],
  [() => '/v1/dead-letters?before=x', 400, 'VALIDATION_FAILED', 'before'],
  [() => `/v1/dead-letters?sourceTopic=${'t'.repeat(256)}`, 400, 'VALIDATION_FAILED', 'sourceTopic'],
  [() => '/v1/dead-letters/x', 400, 'VALIDATION_FAILED', 'id'],
  [() => '/v1/dead-letters/18446744073709551616', 400, 'VALIDATION_FAILED', 'id'],
];

const POST_PATH_ROWS: GetRow[] = [
  [(ids) => `${campaign(ids)}/explode`, 400, 'VALIDATION_FAILED', 'action'],
  [(ids) => `${campaign(ids)}/__proto__`, 400, 'VALIDATION_FAILED', 'action'],
  [(ids) => `${campaign(ids)}/constructor`, 400, 'VALIDATION_FAILED', 'action'],
  [() => `/v1/campaigns/${'c'.repeat(65)}/start`, 400, 'VALIDATION_FAILED', 'campaignId'],
  [(ids) => `${campaign(ids)}/runs/1/explode`, 400, 'VALIDATION_FAILED', 'action'],
  [(ids) => `${campaign(ids)}/runs/abc/pause`, 400, 'VALIDATION_FAILED', 'runId'],
];

const CASES: Case[] = [
  ...postCases('/v1/campaigns', () => '/v1/campaigns', CREATE_ROWS),
  ...postCases('.../audience/inline', (ids) => `${audience(ids)}/inline`, INLINE_ROWS),
  ...postCases('.../audience/url', (ids) => `${audience(ids)}/url`, URL_ROWS),
  ...postCases('/v1/dead-letters/replay', () => '/v1/dead-letters/replay', REPLAY_ROWS),
  ...postCases(
    '/v1/campaigns/<65 characters>/audience/inline',
    () => `/v1/campaigns/${'c'.repeat(65)}/audience/inline`,
    [['a valid body', { recipients: [recipient] }, 400, 'VALIDATION_FAILED', 'campaignId']],
  ),
  ...postCases('.../audience/csv', (ids) => `${audience(ids)}/csv`, [
    ['a JSON body', { phone: '+4915112345678' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a text/plain body', new Raw('phone\n+4915112345678\n', 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a bare text/csv body', new Raw('phone\n+4915112345678\n', 'text/csv'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
  ]),
  ...GET_ROWS.map(([path, status, code, field]): Case => ({
    name: `GET ${path({ campaignId: ':campaignId', importId: ':importId' }).slice(0, 120)}`,
    method: 'GET',
    path,
    status,
    code,
    field,
  })),
  ...POST_PATH_ROWS.map(([path, status, code, field]): Case => ({
    name: `POST ${path({ campaignId: ':campaignId', importId: ':importId' })}`,
    method: 'POST',
    path,
    status,
    code,
    field,
  })),
];

/**
 * What a careless or hostile client sends to every DTO of the campaign API (campaigns, audience, runs,
 * messages, dead letters), against the real service process: each gets its exact 4xx naming the field,
 * never a 500, and nothing is stored.
 */
describe('hostile input to the campaign API (service process)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let service: ServiceProcess;
  let key = '';
  let ids: Ids;
  let stored: unknown;

  const counts = (): Promise<unknown> =>
    ds.query(
      `SELECT (SELECT COUNT(*) FROM campaigns) AS campaigns, (SELECT COUNT(*) FROM audience_imports) AS imports,
              (SELECT COUNT(*) FROM contacts) AS contacts, (SELECT COUNT(*) FROM runs) AS runs`,
    );

  beforeAll(async () => {
    database = await createTestDatabase('ums_hostile_input');
    ds = createDataSource(database.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    await ensureTopics(testKafka(), AllTopics, 1, new KafkaNames(namespace));
    await ds.query(
      `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, rate_ceiling_per_sec, rate_floor_per_sec)
       VALUES ('cred-sms', 't1', 'sms', 'simulator', 'sms', '{}', 100, 1),
              ('cred-whatsapp', 't1', 'wa', 'simulator', 'whatsapp', '{}', 100, 1),
              ('cred-email', 't1', 'mail', 'simulator', 'email', '{}', 100, 1),
              ('cred-other', 't2', 'other', 'simulator', 'sms', '{}', 100, 1)`,
    );
    service = await startServiceProcess({
      app: 'campaign-scheduler',
      env: serviceEnv(database.settings.database, namespace),
    });
    key = await createTenantKey(service.url, 't1');
    const created = await send('POST', '/v1/campaigns', valid);
    const campaignId = String(created.body['id']);
    const imported = await send('POST', `/v1/campaigns/${campaignId}/audience/inline`, {
      recipients: [recipient, { address: 'not a phone', variables: { first_name: 'B' } }],
    });
    ids = { campaignId, importId: String(imported.body['id']) };
    stored = await counts();
  });

  afterAll(async () => {
    await service?.process.stop();
    if (ds?.isInitialized) await ds.destroy();
    await database?.drop();
  });

  async function send(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const raw = body instanceof Raw ? body : undefined;
    const headers: Record<string, string> = { ...bearer(key) };
    if (raw?.contentType !== undefined) headers['content-type'] = raw.contentType;
    if (raw === undefined && body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${service.url}${path}`, {
      method,
      headers,
      body: raw !== undefined ? raw.body : body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: JSON.parse(text) as Record<string, unknown> };
  }

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const answer = await send(c.method, c.path(ids), c.body);
    const error = answer.body['error'] as { code: string; fields?: { field: string }[] };
    expect({ status: answer.status, code: error.code }).toEqual({ status: c.status, code: c.code });
    if (c.field !== undefined) expect(error.fields?.map((f) => f.field)).toContain(c.field);
    if (c.status === 400 && c.code !== 'REPLAY_SELECTION_INVALID')
      expect(error.fields?.length).toBeGreaterThan(0);
  });

  it('stored nothing for any of them', async () => {
    expect(await counts()).toEqual(stored);
    expect(readFileSync(service.logFile, 'utf8')).not.toContain('"statusCode":500');
  });
});
