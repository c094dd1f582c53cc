import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compiledEntry, ManagedProcess, testLogDir, waitUntil } from '@ums/testing';

/**
 * The keeper of a kept stack's service: restarts it when it dies, says so, and passes SIGTERM on
 * so the service drains; a service that exits cleanly is not restarted.
 */
describe('service-keeper (real processes)', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ums-keeper-'));
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A stand-in service: its first start dies with code 3; later starts run until SIGTERM, then drain. */
  const service = (started: string, drained: string): string => `
    const fs = require('node:fs');
    const first = !fs.existsSync(${JSON.stringify(started)});
    fs.appendFileSync(${JSON.stringify(started)}, 'start\\n');
    if (first) process.exit(3);
    process.on('SIGTERM', () => {
      fs.writeFileSync(${JSON.stringify(drained)}, 'drained');
      process.exit(0);
    });
    setInterval(() => undefined, 1000);
  `;

  it('restarts a service that died, says so, and passes SIGTERM on for a drain', async () => {
    const started = join(dir, 'started');
    const drained = join(dir, 'drained');
    const keeper = compiledEntry('tools/stack/service-keeper.ts');
    const logFile = join(testLogDir(), `keeper-${Date.now()}.log`);
    const proc = new ManagedProcess({
      name: 'keeper',
      command: keeper.command,
      args: [...keeper.args, 'stand-in', process.execPath, '-e', service(started, drained)],
      logFile,
    }).start();
    try {
      const line = await waitUntil(
        'the restart line',
        () =>
          /stand-in died \(exit code 3\): restarting in 1 s \(restart 1, 1 in a row\)/.exec(
            readFileSync(logFile, 'utf8'),
          )?.[0],
        { timeoutMs: 15_000, abortIf: proc.exitedUnexpectedly },
      );
      expect(line).toBeDefined();
      await waitUntil(
        'the second start',
        () => existsSync(started) && readFileSync(started, 'utf8') === 'start\nstart\n',
        { timeoutMs: 15_000, abortIf: proc.exitedUnexpectedly },
      );
    } finally {
      expect(await proc.stop(10_000)).toBe(0);
    }
    expect(readFileSync(drained, 'utf8')).toBe('drained');
    // A clean exit after the signal: no restart.
    expect(readFileSync(started, 'utf8')).toBe('start\nstart\n');
  }, 30_000);
});
