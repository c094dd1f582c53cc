import { Expose } from 'class-transformer';
import { IsInt, Max, Min, ValidateBy, type ValidationArguments } from 'class-validator';
import { ToInt } from '@ums/platform';

/** The per-principal limit cannot be above the process's: it would never be reached. */
function AtMostProcessLimit(): PropertyDecorator {
  return ValidateBy({
    name: 'atMostProcessLimit',
    validator: {
      validate: (value: unknown, args?: ValidationArguments): boolean =>
        typeof value === 'number' && value <= (args?.object as LiveConfig).LIVE_MAX_CONNECTIONS,
      defaultMessage: () => 'must be at most LIVE_MAX_CONNECTIONS',
    },
  });
}

/** The live streams (server-sent events) of campaigns and runs for the operator console. */
export class LiveConfig {
  /** Live streams one process serves at once; one more is refused with 429 LIVE_PROCESS_LIMIT_REACHED. */
  @Expose() @ToInt() @IsInt() @Min(1) @Max(100_000) LIVE_MAX_CONNECTIONS = 1_000;
  /** Live streams one credential (key, JWT subject, the operator) holds in one process; then 429. */
  @Expose()
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(100_000)
  @AtMostProcessLimit()
  LIVE_MAX_CONNECTIONS_PER_PRINCIPAL = 20;
  /**
   * How long a run's samples (up to 15 min) are kept after its last watcher left, so a console that
   * comes back (a reload) gets its history at once; 0 forgets them at once.
   */
  @Expose() @ToInt() @IsInt() @Min(0) @Max(3_600_000) LIVE_HISTORY_GRACE_MS = 300_000;
}
