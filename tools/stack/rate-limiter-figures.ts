/** What the sender's rate limiter did over a run, read from its Prometheus metrics. */
export interface RateLimiterFigures {
  readonly tokensGranted: number;
  readonly tokensGivenBack: number;
  /** Given back over granted; 0 when nothing was granted. */
  readonly givenBackShare: number;
  /** Each credential's current AIMD rate, messages/s. */
  readonly rates: readonly number[];
  /** Congestion outcomes reported, by kind (throttled, server_error, timeout). */
  readonly congestion: Readonly<Record<string, number>>;
}

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The samples of a Prometheus text exposition (comments and unparsable lines left out). */
function samplesOf(text: string): Sample[] {
  return text.split('\n').flatMap((line) => {
    const match = line.startsWith('#') ? null : SAMPLE.exec(line);
    const value = Number(match?.[3]);
    if (match === null || !Number.isFinite(value)) return [];
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(LABEL)].map((m) => [m[1], m[2]]));
    return [{ name: match[1] as string, labels, value }];
  });
}

/** The rate limiter's figures from a notification-sender's `/metrics` text. */
export function rateLimiterFigures(metricsText: string): RateLimiterFigures {
  const samples = samplesOf(metricsText);
  const total = (name: string): number =>
    samples.filter((s) => s.name === name).reduce((sum, s) => sum + s.value, 0);
  const tokensGranted = total('ums_rate_limit_tokens_granted_total');
  const tokensGivenBack = total('ums_rate_limit_tokens_given_back_total');
  const congestion: Record<string, number> = {};
  for (const s of samples.filter((x) => x.name === 'ums_rate_limit_congestion_events_total')) {
    const kind = s.labels['kind'] ?? 'unknown';
    congestion[kind] = (congestion[kind] ?? 0) + s.value;
  }
  return {
    tokensGranted,
    tokensGivenBack,
    givenBackShare: tokensGranted === 0 ? 0 : tokensGivenBack / tokensGranted,
    rates: samples.filter((s) => s.name === 'ums_rate_limit_rate').map((s) => s.value),
    congestion,
  };
}
