import type { Level } from 'pino';

/** Health and metrics probes: never request-logged (they come every few seconds). */
export function isProbeUrl(url: string | undefined): boolean {
  return (url ?? '').startsWith('/health') || url === '/metrics';
}

/** The level of a request log line: failures are errors, refusals warnings, the rest debug. */
export function requestLogLevel(statusCode: number, err?: Error): Level {
  return err || statusCode >= 500 ? 'error' : statusCode >= 400 ? 'warn' : 'debug';
}
