import type { TestSendView } from '@ums/contracts';
import type { FetchLike } from './api.client';
import { type CliEnvironment, runCli } from './cli.runner';
import { formatTestSend, parseVariables } from './test-send.commands';
import { UsageError } from './cli.errors';

const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

function view(states: readonly string[]): TestSendView {
  return {
    id: '42',
    campaignId: 'cmp_1',
    actor: 'api-key:key_1',
    requestId: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    recipients: states.map((state, i) => ({
      position: i,
      recipient: `+49151234567${i}0`,
      messageId: String(900 + i),
      state: state as TestSendView['recipients'][number]['state'],
      errorCode: state === 'FAILED' ? 'REJECTED' : null,
      errorText: state === 'FAILED' ? 'number blocked' : null,
      sentAt: state === 'PENDING' ? null : '2026-01-01T00:00:01.000Z',
      deliveredAt: null,
      readAt: null,
      failedAt: null,
      updatedAt: '2026-01-01T00:00:01.000Z',
    })),
  };
}

/** The CLI against an in-memory answer per route; records what it sent. */
function cli(routes: Record<string, () => Response>) {
  const calls: { method: string; url: string; body: string | undefined }[] = [];
  const out: string[] = [];
  const fetchFn: FetchLike = async (url, init) => {
    const method = init?.method ?? 'GET';
    calls.push({ method, url, body: typeof init?.body === 'string' ? init.body : undefined });
    const handler = routes[`${method} ${new URL(url).pathname}`];
    return handler === undefined
      ? json(404, { error: { code: 'ROUTE_NOT_FOUND', message: url } })
      : handler();
  };
  const environment: CliEnvironment = {
    env: {},
    stdout: { write: (s: string) => void out.push(s) },
    stderr: { write: () => undefined },
    fetch: fetchFn,
    sleep: () => Promise.resolve(),
  };
  return { calls, stdout: () => out.join(''), run: (...argv: string[]) => runCli(argv, environment) };
}

describe('ums campaigns test-send', () => {
  it('sends every --to with the --var defaults and, with --wait, polls until none is PENDING or SENDING', async () => {
    const answers = [view(['PENDING', 'SENDING']), view(['SENT', 'FAILED'])];
    const c = cli({
      'POST /v1/campaigns/cmp_1/test-sends': () => json(202, view(['PENDING', 'PENDING'])),
      'GET /v1/campaigns/cmp_1/test-sends/42': () => json(200, answers.shift() ?? view(['SENT', 'FAILED'])),
    });
    const code = await c.run(
      'campaigns',
      'test-send',
      'cmp_1',
      '--to',
      '+4915123456700',
      '--to',
      '0151 23456710',
      '--var',
      'name=Ada',
      '--var',
      'offer=a=b',
      '--wait',
    );
    expect(code).toBe(0);
    expect(JSON.parse(c.calls[0]?.body ?? '')).toEqual({
      recipients: [{ to: '+4915123456700' }, { to: '0151 23456710' }],
      variables: { name: 'Ada', offer: 'a=b' },
    });
    expect(c.calls.map((call) => call.method)).toEqual(['POST', 'GET', 'GET']);
    expect(c.stdout()).toContain('REJECTED: number blocked');
    expect(c.stdout()).toMatch(/\+4915123456700\s+900\s+SENT/);
  });

  it('needs at least one --to', async () => {
    const c = cli({});
    expect(await c.run('campaigns', 'test-send', 'cmp_1')).toBe(2);
    expect(c.calls).toEqual([]);
  });
});

describe('parseVariables', () => {
  it('reads NAME=VALUE pairs, keeping = in values, and refuses pairs without a name', () => {
    expect(parseVariables([], 'usage')).toBeUndefined();
    expect(parseVariables(['a=1', 'b=x=y', 'c='], 'usage')).toEqual({ a: '1', b: 'x=y', c: '' });
    expect(() => parseVariables(['=1'], 'usage')).toThrow(UsageError);
    expect(() => parseVariables(['novalue'], 'usage')).toThrow('--var must be NAME=VALUE');
  });
});

describe('formatTestSend', () => {
  it('prints one line per recipient with its state and error', () => {
    const text = formatTestSend(view(['SENT', 'FAILED']));
    expect(text).toContain('test send:  42');
    expect(text).toMatch(/^#\s+RECIPIENT\s+MESSAGE\s+STATE\s+ERROR\s+SENT\s+DELIVERED$/m);
    expect(text.trimEnd().split('\n').slice(-2)).toEqual([
      expect.stringMatching(/^0\s+\+4915123456700\s+900\s+SENT\s+-\s+2026-01-01 00:00:01Z\s+-$/),
      expect.stringMatching(/^1\s+\+4915123456710\s+901\s+FAILED\s+REJECTED: number blocked/),
    ]);
  });
});
