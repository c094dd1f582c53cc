import { Counter } from 'prom-client';
import { infrastructureFailure } from '../errors/infrastructure-error';
import type { MetricsRegistry } from '../metrics/metrics-registry';

/** What the safety net writes to: the service's logger (nestjs-pino's Logger fits). */
export interface SafetyNetLogger {
  warn(message: unknown, ...rest: unknown[]): void;
  error(message: unknown, ...rest: unknown[]): void;
  fatal?(message: unknown, ...rest: unknown[]): void;
}

export interface ProcessSafetyNetOptions {
  readonly logger: SafetyNetLogger;
  readonly metrics: MetricsRegistry;
  /** Ends the process after an uncaught exception that is not an infrastructure failure. */
  readonly exit?: (code: number) => void;
  /** The process to watch (tests pass an EventEmitter). */
  readonly target?: NodeJS.EventEmitter;
}

/**
 * The last line of defence of a running service. Every promise has its handler (the house rule),
 * but a driver can still reject one nobody awaits or emit an `error` nobody listens to when its
 * connection is lost. Such a failure must not end the process: a MySQL restart of a few seconds
 * would otherwise kill every replica at once. So:
 * - an unhandled rejection is logged (with the dependency when it is an infrastructure failure)
 *   and counted in ums_process_unhandled_errors_total; the process goes on;
 * - an uncaught exception that is an infrastructure failure (an `error` event of a lost socket) is
 *   logged and counted the same way; any other uncaught exception is a bug whose state cannot be
 *   trusted: logged as fatal, and the process exits 1 (its orchestrator restarts it).
 * Returns a function that removes the handlers.
 */
export function installProcessSafetyNet(options: ProcessSafetyNetOptions): () => void {
  const target = options.target ?? process;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const counted = new Counter({
    name: 'ums_process_unhandled_errors_total',
    help: 'Rejections nobody handled and uncaught exceptions, by kind and dependency (none = not infrastructure)',
    labelNames: ['kind', 'dependency'],
    registers: [options.metrics],
  });
  const onRejection = (reason: unknown): void => {
    const failure = infrastructureFailure(reason);
    counted.inc({ kind: 'rejection', dependency: failure?.dependency ?? 'none' });
    if (failure !== undefined) {
      options.logger.warn(
        { err: reason, dependency: failure.dependency, code: failure.code },
        'Unhandled rejection from an unavailable dependency: logged, the service goes on',
      );
    } else {
      options.logger.error({ err: reason }, 'Unhandled promise rejection: logged, the service goes on');
    }
  };
  const onException = (error: unknown): void => {
    const failure = infrastructureFailure(error);
    counted.inc({ kind: 'exception', dependency: failure?.dependency ?? 'none' });
    if (failure !== undefined) {
      options.logger.warn(
        { err: error, dependency: failure.dependency, code: failure.code },
        'Uncaught connection error from an unavailable dependency: logged, the service goes on',
      );
      return;
    }
    (options.logger.fatal ?? options.logger.error).call(
      options.logger,
      { err: error },
      'Uncaught exception: exiting',
    );
    exit(1);
  };
  target.on('unhandledRejection', onRejection);
  target.on('uncaughtException', onException);
  return () => {
    target.off('unhandledRejection', onRejection);
    target.off('uncaughtException', onException);
  };
}
