import { type ChildProcess, spawn } from 'node:child_process';
import { crashed, type ExitStatus, RestartBackoff, restartLine } from './restart-policy';

/**
 * Keeps one service of a kept stack (`npm run demo -- --keep`) running after the demo has exited,
 * as Kubernetes would: `service-keeper <label> <command> [args...]` runs the command as its child
 * and restarts it with a bounded backoff when it dies (a non-zero exit or a signal), saying so on
 * its own output (the service's log file). SIGTERM or SIGINT is passed on to the service, and the
 * keeper exits with the service's code once it has drained; a service that exits 0 is not restarted.
 */
function main(): void {
  const [label, command, ...args] = process.argv.slice(2);
  if (label === undefined || command === undefined) {
    process.stderr.write('usage: service-keeper <label> <command> [args...]\n');
    process.exit(2);
  }
  const say = (line: string): void =>
    void process.stdout.write(`[stack] ${new Date().toISOString()} ${line}\n`);
  const backoff = new RestartBackoff();
  let child: ChildProcess | undefined;
  let stopping = false;
  let restarts = 0;
  const start = (): void => {
    const startedAt = Date.now();
    const current = spawn(command, args, { stdio: 'inherit' });
    child = current;
    current.once('exit', (code, signal) => {
      const exit: ExitStatus = { code, signal };
      if (stopping || !crashed(exit)) process.exit(code ?? 1);
      restarts += 1;
      const step = backoff.next(Date.now() - startedAt);
      say(restartLine(label, exit, { ...step, total: restarts }));
      setTimeout(start, step.delayMs);
    });
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      stopping = true;
      if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill(signal);
      else process.exit(0);
    });
  }
  start();
}

main();
