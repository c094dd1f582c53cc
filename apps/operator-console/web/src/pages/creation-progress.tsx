import type { CampaignView, ImportSummary, RejectView } from '../api/api.types';
import { rejectField } from '../campaigns/reject-field';
import { importOutcome } from '../campaigns/import-progress';
import type { CreationStep } from '../campaigns/use-campaign-creation';
import { ErrorAlert } from '../components/error-alert';
import { ProgressBar } from '../components/progress-bar';
import { TableRegion } from '../components/table-region';
import { formatBytes, formatCount, percentOf } from '../format/format';
import { hrefOf } from '../router/routes';

/** Where creating the campaign and importing its audience stand: upload bar, import counts, rejected rows. */
export function CreationProgress({ step, campaign }: { step: CreationStep; campaign: CampaignView | null }) {
  if (step.kind === 'idle') return null;
  return (
    <section class="creation" aria-labelledby="creation-heading">
      <h2 id="creation-heading">Import</h2>
      <div aria-live="polite">
        <StepLine step={step} />
      </div>
      {step.kind === 'failed' ? <ErrorAlert error={step.error} /> : null}
      {step.kind === 'done' ? (
        <ImportDone summary={step.summary} rejects={step.rejects} more={step.more} />
      ) : null}
      {campaign === null ? null : (
        <p>
          <a class="button button-link" href={hrefOf({ page: 'campaign', campaignId: campaign.id })}>
            Open campaign
          </a>
        </p>
      )}
    </section>
  );
}

function StepLine({ step }: { step: CreationStep }) {
  switch (step.kind) {
    case 'creating':
      return <p>Creating the campaign…</p>;
    case 'uploading':
      return (
        <>
          <p>
            Uploading {formatBytes(step.loaded)} of {formatBytes(step.total)}…
          </p>
          <ProgressBar label="Upload" percent={percentOf(step.loaded, step.total)} />
        </>
      );
    case 'importing':
      return (
        <p>
          Importing: {formatCount(step.summary.rowsRead)} rows read, {formatCount(step.summary.rowsAccepted)}{' '}
          accepted, {formatCount(step.summary.rowsRejected)} rejected so far…
        </p>
      );
    case 'done':
      return <p>{step.summary.state === 'FAILED' ? 'The import failed.' : 'The import is done.'}</p>;
    default:
      return null;
  }
}

function ImportDone({
  summary,
  rejects,
  more,
}: {
  summary: ImportSummary;
  rejects: readonly RejectView[];
  more: boolean;
}) {
  return (
    <>
      <p class="import-outcome">
        <strong>{importOutcome(summary)}</strong>
      </p>
      <p class="muted">
        {formatCount(summary.rowsRead)} rows read, {formatCount(summary.rowsDuplicate)} duplicates left out.
      </p>
      {summary.error === null ? null : (
        <div class="alert alert-error" role="alert">
          <p>
            <strong class="error-code">IMPORT_FAILED</strong>{' '}
            <span class="error-message">{summary.error}</span>
          </p>
        </div>
      )}
      {rejects.length === 0 ? null : (
        <TableRegion label="Rejected rows">
          <table class="table">
            <caption>Rejected rows</caption>
            <thead>
              <tr>
                <th scope="col">Line</th>
                <th scope="col">Field</th>
                <th scope="col">Reason</th>
                <th scope="col">Row as read</th>
              </tr>
            </thead>
            <tbody>
              {rejects.map((row) => (
                <tr key={row.line}>
                  <td>{row.line}</td>
                  <td>{rejectField(row.reason) || '—'}</td>
                  <td>{row.reason}</td>
                  <td>
                    <code class="raw">{row.raw ?? ''}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
      {more ? <p class="muted">More rejected rows than shown; the API lists all of them.</p> : null}
    </>
  );
}
