import { ApiError } from './cli.errors';
import {
  errorJson,
  formatApiError,
  formatBytes,
  formatFields,
  formatTable,
  progressBar,
} from './output.formatter';
import { ProgressReporter } from './progress.reporter';

describe('formatTable', () => {
  it('aligns columns, right-aligns numbers and shows blanks as -', () => {
    const text = formatTable(
      ['ID', 'STATE', 'SENT'],
      [
        ['1', 'RUNNING', 5],
        ['12345', 'COMPLETED', 1000],
        ['7', null, 0],
      ],
    );
    expect(text.split('\n')).toEqual([
      'ID     STATE      SENT',
      '-----  ---------  ----',
      '    1  RUNNING       5',
      '12345  COMPLETED  1000',
      '    7  -             0',
      '',
    ]);
  });

  it('says (none) for no rows', () => {
    expect(formatTable(['ID'], [])).toBe('(none)\n');
  });
});

describe('formatFields', () => {
  it('aligns keys', () => {
    expect(
      formatFields([
        ['id', 'x'],
        ['audience', 3],
        ['next fire', null],
      ]),
    ).toBe('id:         x\naudience:   3\nnext fire:  -\n');
  });
});

describe('progressBar', () => {
  it('fills by the ratio and clamps', () => {
    expect(progressBar(0, 10, 10)).toBe('[----------]   0%  0/10');
    expect(progressBar(5, 10, 10)).toBe('[#####-----]  50%  5/10');
    expect(progressBar(10, 10, 10)).toBe('[##########] 100%  10/10');
    expect(progressBar(15, 10, 10)).toBe('[##########] 100%  15/10');
    expect(progressBar(3, 0, 10)).toBe('[----------]   0%  3/0');
  });
});

describe('formatBytes', () => {
  it('uses binary units', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(40 * 1024 * 1024)).toBe('40.0 MiB');
  });
});

describe('errors', () => {
  it('prints the code, the message and every field with its reason', () => {
    const error = new ApiError(400, 'VALIDATION_FAILED', 'Invalid campaign', [
      { field: 'channel', reason: 'channel must be one of whatsapp, sms, email' },
      { field: 'schedule.at', reason: 'at must be an ISO 8601 time' },
    ]);
    expect(formatApiError(error)).toBe(
      'error: VALIDATION_FAILED: Invalid campaign (HTTP 400)\n' +
        '  channel: channel must be one of whatsapp, sms, email\n' +
        '  schedule.at: at must be an ISO 8601 time\n',
    );
    expect(JSON.parse(errorJson('X', 'm', { status: 404 }))).toEqual({
      error: { code: 'X', message: 'm', status: 404 },
    });
  });
});

describe('ProgressReporter', () => {
  function sink(isTTY: boolean): { writes: string[]; stream: { isTTY: boolean; write(s: string): void } } {
    const writes: string[] = [];
    return { writes, stream: { isTTY, write: (s: string) => void writes.push(s) } };
  }

  it('redraws in place on a terminal and ends the line', () => {
    const { writes, stream } = sink(true);
    const reporter = new ProgressReporter(stream, 'tty');
    reporter.update('a');
    reporter.update('a');
    reporter.update('b');
    reporter.finish('c');
    expect(writes).toEqual(['\r\x1b[2Ka', '\r\x1b[2Kb', '\r\x1b[2Kc', '\n']);
  });

  it('writes throttled lines to a log, and always the final one', () => {
    const { writes, stream } = sink(false);
    let now = 0;
    const reporter = new ProgressReporter(stream, 'lines', () => now, 1000);
    reporter.update('a');
    now = 500;
    reporter.update('b');
    now = 1500;
    reporter.update('c');
    reporter.finish('d');
    expect(writes).toEqual(['a\n', 'c\n', 'd\n']);
  });

  it('writes nothing when off (--json)', () => {
    const { writes, stream } = sink(true);
    const reporter = new ProgressReporter(stream, 'off');
    reporter.update('a');
    reporter.finish('b');
    expect(writes).toEqual([]);
  });
});
