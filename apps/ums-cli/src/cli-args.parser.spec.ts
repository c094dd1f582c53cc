import { CommandInput, parseCommandLine, parseInteger, parseIsoTime, parseSettings } from './cli-args.parser';
import { UsageError } from './cli.errors';

describe('parseCommandLine', () => {
  it('splits positionals from options, in any order, with = or a separate value', () => {
    const line = parseCommandLine(['campaigns', '--tenant=acme', 'list', '--limit', '5', '--json']);
    expect(line.positionals).toEqual(['campaigns', 'list']);
    expect(line.values).toEqual({ tenant: 'acme', limit: '5', json: true });
  });

  it('collects repeated options that may repeat', () => {
    const line = parseCommandLine(['--template-param', 'a', '--template-param', 'b']);
    expect(line.values['template-param']).toEqual(['a', 'b']);
  });

  it.each([
    [['--bogus'], /bogus/],
    [['--tenant'], /tenant/],
    [['--json=yes'], /json/],
  ])('refuses %j as a usage error', (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(UsageError);
    expect(() => parseCommandLine(argv)).toThrow(message);
  });
});

describe('CommandInput', () => {
  const usage = 'ums x y';

  it('refuses an option the command does not take, but takes the global ones', () => {
    const line = parseCommandLine(['--csv', 'f.csv', '--json']);
    expect(() => CommandInput.accept(line, [], ['tenant'], usage)).toThrow(
      '--csv is not an option of this command',
    );
    const input = CommandInput.accept(line, [], ['csv'], usage);
    expect(input.string('csv')).toBe('f.csv');
    expect(input.flag('json')).toBe(true);
  });

  it('names what is missing or wrong', () => {
    const input = CommandInput.accept(
      parseCommandLine(['a', '--limit', '0', '--name', ' ']),
      ['a'],
      ['limit', 'name', 'tenant'],
      usage,
    );
    expect(input.arg(0, 'ID')).toBe('a');
    expect(() => input.arg(1, 'RUN_ID')).toThrow('missing RUN_ID');
    expect(() => input.required('tenant')).toThrow('--tenant is required');
    expect(() => input.string('name')).toThrow('--name must not be empty');
    expect(() => input.int('limit', { min: 1, max: 500 })).toThrow(
      '--limit must be an integer 1..500, got "0"',
    );
    expect(() => input.noMoreArgs(0)).toThrow('unexpected argument: a');
    try {
      input.required('tenant');
    } catch (error: unknown) {
      expect((error as UsageError).usage).toBe(usage);
      expect((error as UsageError).exitCode).toBe(2);
    }
  });
});

describe('value parsers', () => {
  it('parses integers strictly', () => {
    expect(parseInteger('42', '--n', { min: 1 })).toBe(42);
    for (const bad of ['4.2', '1e3', 'x', '', '-1']) {
      expect(() => parseInteger(bad, '--n', { min: 0 })).toThrow(UsageError);
    }
  });

  it('parses KEY=VALUE settings keeping numbers and booleans', () => {
    expect(
      parseSettings(['baseUrl=http://sim:3005', 'retries=3', 'sandbox=true', 'eq=a=b'], '--config'),
    ).toEqual({
      baseUrl: 'http://sim:3005',
      retries: 3,
      sandbox: true,
      eq: 'a=b',
    });
    expect(() => parseSettings(['novalue'], '--config')).toThrow('--config must be KEY=VALUE');
  });

  it('accepts ISO times with an offset only', () => {
    expect(parseIsoTime('2026-01-31T09:00:00Z', '--since')).toBe('2026-01-31T09:00:00Z');
    expect(parseIsoTime('2026-01-31T09:00:00.123+01:00', '--since')).toBe('2026-01-31T09:00:00.123+01:00');
    for (const bad of ['2026-01-31', '2026-01-31T09:00:00', 'yesterday', '2026-13-45T99:00:00Z']) {
      expect(() => parseIsoTime(bad, '--since')).toThrow(UsageError);
    }
  });
});
