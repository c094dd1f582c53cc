import { setTimeout as sleep } from 'node:timers/promises';
import { runCli } from './cli.runner';

/**
 * The operator CLI's entry: the one place that hands the process (argv, environment, streams,
 * fetch) to the CLI. Run it through the bin (`apps/ums-cli/bin/ums.js`) or `npm run ums -- ...`.
 */
function main(): void {
  runCli(process.argv.slice(2), {
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    fetch: (input, init) => fetch(input, init),
    sleep: (ms) => sleep(ms),
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(
        `internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exitCode = 1;
    },
  );
}

main();
