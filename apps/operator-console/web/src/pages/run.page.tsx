import { useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, isAbort, toApiError } from '../api/api-error';
import type { RunCounters, RunHistoryFrame, RunSample, RunTimeline, RunView } from '../api/api.types';
import { scheduler } from '../api/console-client';
import { CountersList } from '../components/counters-list';
import { ErrorAlert } from '../components/error-alert';
import { LiveStatusLine } from '../components/live-status';
import { ProgressBar } from '../components/progress-bar';
import { StateBadge } from '../components/state-badge';
import { finishedCount, formatCount, progressPercent } from '../format/format';
import { useLiveStream } from '../hooks/use-live-stream';
import { useResource } from '../hooks/use-resource';
import { mergeSamples } from '../live/run-series';
import { needsFinalTimeline } from '../live/run-timeline-merge';
import { hrefOf } from '../router/routes';
import { RunActionsBar } from './run-actions-bar';
import { RunCharts } from './run-charts';
import { RunMessages } from './run-messages';

/** How often, at most, the progress is read out to screen readers (a state change is read at once). */
const ANNOUNCE_MS = 15_000;

function liveRunPath(campaignId: string, runId: string): string {
  return `/v1/live/campaigns/${encodeURIComponent(campaignId)}/runs/${encodeURIComponent(runId)}`;
}

/** The run's samples from its live stream: the history on each (re)connect, then one per second. */
function useRunSamples(campaignId: string, runId: string) {
  const [samples, setSamples] = useState<RunSample[]>([]);
  useEffect(() => setSamples([]), [campaignId, runId]);
  const status = useLiveStream('scheduler', liveRunPath(campaignId, runId), (event, data) => {
    if (event === 'history') {
      const history = (JSON.parse(data) as RunHistoryFrame).samples;
      setSamples((kept) => mergeSamples(kept, history));
    } else if (event === 'sample') {
      const sample = JSON.parse(data) as RunSample;
      setSamples((kept) => mergeSamples(kept, [sample]));
    }
  });
  return { samples, status };
}

/**
 * The run's timeline (its last 15 minutes per second, which the live stream may not have seen): read
 * when the page opens, and once more when the run turns finished if the stream missed part of it.
 */
function useRunTimeline(campaignId: string, runId: string, samples: readonly RunSample[]) {
  const [timeline, setTimeline] = useState<RunTimeline | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [settled, setSettled] = useState(false);
  const [final, setFinal] = useState(false);
  useEffect(() => {
    setTimeline(null);
    setError(null);
    setFinal(false);
  }, [campaignId, runId]);
  useEffect(() => {
    const controller = new AbortController();
    setSettled(false);
    scheduler.runTimeline(campaignId, runId, controller.signal).then(
      (answer) => {
        if (controller.signal.aborted) return;
        setTimeline(answer);
        setError(null);
        setSettled(true);
      },
      (thrown: unknown) => {
        if (controller.signal.aborted || isAbort(thrown)) return;
        setError(toApiError(thrown));
        setSettled(true);
      },
    );
    return () => controller.abort();
  }, [campaignId, runId, final]);
  const readAgain = settled && !final && needsFinalTimeline(timeline, samples);
  useEffect(() => {
    if (readAgain) setFinal(true);
  }, [readAgain]);
  return { timeline, error };
}

/** A throttled progress line for screen readers (aria-live): at once on a state change, else every 15 s. */
function useAnnouncement(state: string, counters: RunCounters | undefined): string {
  const [text, setText] = useState('');
  const last = useRef({ state: '', at: 0 });
  useEffect(() => {
    if (counters === undefined) return;
    const now = Date.now();
    if (state === last.current.state && now - last.current.at < ANNOUNCE_MS) return;
    last.current = { state, at: now };
    setText(
      `Run ${state}: ${formatCount(finishedCount(counters))} of ${formatCount(counters.total)} messages finished.`,
    );
  }, [state, counters]);
  return text;
}

/** A run live: state, counters, charts, the five actions, and its messages. */
export function RunPage({ campaignId, runId }: { campaignId: string; runId: string }) {
  const campaign = useResource(() => scheduler.campaign(campaignId), [campaignId]);
  const run = useResource(() => scheduler.run(campaignId, runId), [campaignId, runId]);
  const [acted, setActed] = useState<RunView | null>(null);
  const { samples, status } = useRunSamples(campaignId, runId);
  const timeline = useRunTimeline(campaignId, runId, samples);
  const latest = samples.at(-1);
  const fromAction =
    acted !== null && (latest === undefined || Date.parse(latest.at) < Date.parse(acted.updatedAt));
  const state = fromAction ? acted.state : (latest?.state ?? run.data?.state ?? '');
  const counters = fromAction ? acted.counters : (latest?.counters ?? run.data?.counters);
  const announcement = useAnnouncement(state, counters);
  return (
    <section class="page" aria-labelledby="run-heading">
      <p class="breadcrumb">
        <a href={hrefOf({ page: 'campaign', campaignId })}>
          {campaign.data?.name ?? `Campaign ${campaignId}`}
        </a>
      </p>
      <div class="page-head">
        <h1 id="run-heading">Run {runId}</h1>
        {state === '' ? null : <StateBadge state={state} testId="run-state" />}
        <LiveStatusLine status={status} />
      </div>
      <ErrorAlert error={run.error} />
      <p class="visually-hidden" aria-live="polite">
        {announcement}
      </p>
      {counters === undefined ? (
        run.error === null ? (
          <p class="muted">Loading…</p>
        ) : null
      ) : (
        <>
          <ProgressBar
            label={`Progress of run ${runId}`}
            percent={progressPercent(counters)}
            done={finishedCount(counters)}
            total={counters.total}
          />
          <CountersList counters={counters} />
          <RunActionsBar
            campaignId={campaignId}
            runId={runId}
            state={state}
            counters={counters}
            onDone={setActed}
          />
        </>
      )}
      <ErrorAlert error={timeline.error} context="Run timeline" />
      <RunCharts samples={samples} timeline={timeline.timeline} />
      <RunMessages campaignId={campaignId} runId={runId} />
    </section>
  );
}
