import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import type { ChartColumns } from '../live/run-series';

export interface ChartSeries {
  readonly label: string;
  readonly stroke: string;
  readonly dash?: number[];
  /** 'y' (left axis, default) or 'y2' (right axis). */
  readonly scale?: 'y' | 'y2';
}

export interface UplotChartProps {
  readonly series: readonly ChartSeries[];
  readonly data: ChartColumns;
  readonly leftLabel: string;
  /** A right axis for the series on 'y2'. */
  readonly rightLabel?: string;
  readonly height?: number;
}

const AXIS = { stroke: '#3b4351', grid: { stroke: '#e3e6ea' }, ticks: { stroke: '#c9ced6' } };

function optionsOf(props: UplotChartProps, width: number): uPlot.Options {
  const axes: uPlot.Axis[] = [{ ...AXIS }, { ...AXIS, label: props.leftLabel, scale: 'y', size: 56 }];
  if (props.rightLabel !== undefined) {
    // Counts (429s): whole-number ticks.
    axes.push({
      ...AXIS,
      label: props.rightLabel,
      scale: 'y2',
      side: 1,
      grid: { show: false },
      size: 56,
      incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000],
    });
  }
  return {
    width,
    height: props.height ?? 220,
    scales: {
      x: { time: true },
      y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
      y2: { range: (_u, _min, max) => [0, Math.max(1, max)] },
    },
    axes,
    legend: { live: true },
    cursor: { drag: { x: false, y: false } },
    series: [
      { label: 'Time' },
      ...props.series.map((series): uPlot.Series => ({
        label: series.label,
        stroke: series.stroke,
        width: 2,
        scale: series.scale ?? 'y',
        spanGaps: false,
        points: { show: false },
        ...(series.dash === undefined ? {} : { dash: series.dash }),
      })),
    ],
  };
}

/**
 * A uPlot time-series chart that follows its container's width (a ResizeObserver) and redraws when the
 * data changes. The series are fixed when it mounts.
 */
export function UplotChart(props: UplotChartProps) {
  const container = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);
  const initial = useRef(props);
  useEffect(() => {
    const element = container.current;
    if (element === null) return undefined;
    const width = Math.max(200, element.clientWidth);
    const plot = new uPlot(optionsOf(initial.current, width), initial.current.data, element);
    chart.current = plot;
    const observer = new ResizeObserver(() => {
      const next = Math.max(200, element.clientWidth);
      if (next !== plot.width) plot.setSize({ width: next, height: initial.current.height ?? 220 });
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      plot.destroy();
      chart.current = null;
    };
  }, []);
  useEffect(() => {
    chart.current?.setData(props.data);
  }, [props.data]);
  return <div class="chart" ref={container} />;
}
