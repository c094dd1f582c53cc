import { ADMIN_USAGE, parseAdminCommandLine } from './admin-command.parser';

describe('parseAdminCommandLine', () => {
  it('reads migrate with its action, up by default', () => {
    expect(parseAdminCommandLine(['migrate'])).toEqual({
      ok: true,
      command: { kind: 'migrate', action: 'up' },
    });
    for (const action of ['up', 'down', 'reset', 'status'])
      expect(parseAdminCommandLine(['migrate', action])).toEqual({
        ok: true,
        command: { kind: 'migrate', action },
      });
  });

  it('refuses an unknown migrate action and extra arguments', () => {
    expect(parseAdminCommandLine(['migrate', 'sideways'])).toEqual({
      ok: false,
      help: false,
      message: 'unknown migrate command "sideways": use up, down, reset or status',
    });
    expect(parseAdminCommandLine(['migrate', 'up', 'now'])).toMatchObject({ ok: false, help: false });
  });

  it('reads create-topics with its replication (1 by default) and --report-only', () => {
    expect(parseAdminCommandLine(['create-topics'])).toEqual({
      ok: true,
      command: { kind: 'create-topics', replication: 1, reportOnly: false },
    });
    expect(parseAdminCommandLine(['create-topics', '--report-only', '--replication', '3'])).toEqual({
      ok: true,
      command: { kind: 'create-topics', replication: 3, reportOnly: true },
    });
  });

  it.each([['0'], ['1.5'], ['x'], [undefined]])('refuses --replication %s', (value) => {
    const args = ['create-topics', '--replication', ...(value === undefined ? [] : [value])];
    expect(parseAdminCommandLine(args)).toEqual({
      ok: false,
      help: false,
      message: '--replication must be a positive integer',
    });
  });

  it('refuses an unknown create-topics argument and an unknown command', () => {
    expect(parseAdminCommandLine(['create-topics', '--partitions', '3'])).toEqual({
      ok: false,
      help: false,
      message: 'create-topics: unknown argument "--partitions"',
    });
    expect(parseAdminCommandLine(['seed'])).toEqual({
      ok: false,
      help: false,
      message: 'unknown command "seed"',
    });
  });

  it('answers the usage to no command and to --help', () => {
    for (const argv of [[], ['help'], ['--help']])
      expect(parseAdminCommandLine(argv)).toEqual({ ok: false, help: true, message: ADMIN_USAGE });
  });
});
