import { useMemo } from 'preact/hooks';
import type { RunSample, RunTimeline } from '../api/api.types';
import { type ChartSeries, UplotChart } from '../components/uplot-chart';
import { formatRate } from '../format/format';
import { latestRates } from '../live/run-series';
import { activeSeconds, mergedLimiterColumns, mergedMessageColumns } from '../live/run-timeline-merge';

const MESSAGE_SERIES: readonly ChartSeries[] = [
  { label: 'Sent', stroke: '#1f5fbf' },
  { label: 'Delivered', stroke: '#1a7f37' },
  { label: 'Read', stroke: '#6f42c1', dash: [6, 3] },
  { label: 'Failed', stroke: '#c62828' },
  { label: 'Unknown', stroke: '#8a5a00', dash: [2, 3] },
];

const LIMITER_SERIES: readonly ChartSeries[] = [
  { label: 'AIMD rate (/s)', stroke: '#1f5fbf' },
  { label: '429s', stroke: '#c62828', dash: [4, 3], scale: 'y2' },
];

/**
 * The run's two charts, messages per second by outcome and the credential's limiter: the live samples'
 * rates where the stream covers a second, the run's timeline elsewhere (a run nobody watched live).
 */
export function RunCharts({
  samples,
  timeline,
}: {
  samples: readonly RunSample[];
  timeline: RunTimeline | null;
}) {
  const rates = useMemo(() => mergedMessageColumns(samples, timeline), [samples, timeline]);
  const limiter = useMemo(() => mergedLimiterColumns(samples, timeline), [samples, timeline]);
  const latest = latestRates(rates);
  const lastRate = samples.at(-1)?.rate ?? null;
  return (
    <div class="charts">
      <figure class="chart-figure" data-active-seconds={activeSeconds(rates)}>
        <figcaption>Messages per second</figcaption>
        <UplotChart series={MESSAGE_SERIES} data={rates} leftLabel="messages / s" />
        <p class="chart-summary">
          Last second: sent {formatRate(latest.sent)}, delivered {formatRate(latest.delivered)}, read{' '}
          {formatRate(latest.read)}, failed {formatRate(latest.failed)}, unknown {formatRate(latest.unknown)}.
        </p>
      </figure>
      <figure class="chart-figure">
        <figcaption>Rate limiter</figcaption>
        <UplotChart series={LIMITER_SERIES} data={limiter} leftLabel="rate / s" rightLabel="429s / s" />
        <p class="chart-summary">
          {lastRate === null
            ? 'No limiter figures for the last second.'
            : `Last second: AIMD rate ${formatRate(lastRate.rate)}/s, ${formatRate(lastRate.congested)} 429s, ` +
              `${formatRate(lastRate.accepted)} accepted.`}
        </p>
      </figure>
    </div>
  );
}
