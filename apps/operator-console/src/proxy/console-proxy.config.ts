import { Expose } from 'class-transformer';
import { IsInt, Max, Min, ValidateBy } from 'class-validator';
import { ToInt } from '@ums/platform';

/**
 * Whether `value` is an http or https origin: a scheme, a host and an optional port, with nothing
 * after them but an optional `/`. No user or password (the console holds no credential), no path
 * (the console's prefix is replaced by the API's own paths), no query or fragment.
 */
export function isApiOrigin(value: unknown): boolean {
  if (typeof value !== 'string' || !/^https?:\/\/[^/?#]+\/?$/i.test(value)) return false;
  try {
    const url = new URL(value);
    return url.username === '' && url.password === '' && url.hostname !== '';
  } catch {
    return false;
  }
}

/** The origin without its trailing `/`: what the proxy appends the API's paths to. */
export function originOf(value: string): string {
  return new URL(value).origin;
}

const ApiOrigin = (): PropertyDecorator =>
  ValidateBy({
    name: 'apiOrigin',
    validator: {
      validate: isApiOrigin,
      defaultMessage: (args) =>
        `${args?.property ?? 'the URL'} must be an http:// or https:// origin: scheme, host and optional port, without user, path or query`,
    },
  });

/** Where the console passes the browser's API calls on to (validated once at start-up). */
export class ConsoleProxyConfig {
  /** The campaign-scheduler API: `/api/scheduler/v1/x` is passed on as `<this>/v1/x`. */
  @Expose() @ApiOrigin() CONSOLE_SCHEDULER_URL!: string;

  /** The webhook-dispatcher API: `/api/dispatcher/v1/x` is passed on as `<this>/v1/x`. */
  @Expose() @ApiOrigin() CONSOLE_DISPATCHER_URL!: string;

  /**
   * How long the console waits for an API's answer to begin (a CSV upload is answered once it is
   * imported), and at most between two pieces of a streamed answer (live streams send a keep-alive
   * every second). Beyond it the call is answered 504 UPSTREAM_TIMEOUT, or a stream is cut.
   */
  @Expose() @ToInt() @IsInt() @Min(1_000) @Max(3_600_000) CONSOLE_UPSTREAM_TIMEOUT_MS = 300_000;
}
