import { useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, isAbort, toApiError } from '../api/api-error';
import type { CampaignView, ImportSummary, RejectView } from '../api/api.types';
import { client, scheduler } from '../api/console-client';
import type { NewCampaignBody } from '../api/console.api';
import { uploadFile } from '../api/upload';
import { collectRejects, IMPORT_POLL_MS, isImportDone } from './import-progress';

export type AudienceSource =
  { readonly kind: 'csv'; readonly file: File } | { readonly kind: 'url'; readonly url: string };

export type CreationStep =
  | { readonly kind: 'idle' }
  | { readonly kind: 'creating' }
  | { readonly kind: 'uploading'; readonly loaded: number; readonly total: number }
  | { readonly kind: 'importing'; readonly summary: ImportSummary }
  | {
      readonly kind: 'done';
      readonly summary: ImportSummary;
      readonly rejects: RejectView[];
      readonly more: boolean;
    }
  | { readonly kind: 'failed'; readonly error: ApiError };

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new DOMException('The page was left', 'AbortError'));
    });
  });
}

/**
 * Creates the campaign (once: a retry after a failed import reuses it), imports its audience from the CSV
 * file (upload progress) or the URL, follows the import until it is done, and reads its rejected rows.
 */
export function useCampaignCreation() {
  const [step, setStep] = useState<CreationStep>({ kind: 'idle' });
  const [created, setCreated] = useState<CampaignView | null>(null);
  const controller = useRef(new AbortController());
  useEffect(() => () => controller.current.abort(), []);

  const importAudience = async (campaign: CampaignView, source: AudienceSource): Promise<ImportSummary> => {
    const signal = controller.current.signal;
    if (source.kind === 'url') return scheduler.importFromUrl(campaign.id, source.url);
    setStep({ kind: 'uploading', loaded: 0, total: source.file.size });
    return uploadFile<ImportSummary>(client, {
      service: 'scheduler',
      path: `/v1/campaigns/${encodeURIComponent(campaign.id)}/audience/csv`,
      field: 'file',
      file: source.file,
      signal,
      onProgress: (progress) =>
        setStep({ kind: 'uploading', loaded: progress.loaded, total: progress.total || source.file.size }),
    });
  };

  const follow = async (campaign: CampaignView, first: ImportSummary): Promise<void> => {
    const signal = controller.current.signal;
    let summary = first;
    while (!isImportDone(summary)) {
      setStep({ kind: 'importing', summary });
      await wait(IMPORT_POLL_MS, signal);
      summary = await scheduler.audienceImport(campaign.id, summary.id);
    }
    const { rows, more } =
      summary.rowsRejected === 0
        ? { rows: [], more: false }
        : await collectRejects((after) => scheduler.rejects(campaign.id, summary.id, after));
    setStep({ kind: 'done', summary, rejects: rows, more });
  };

  const submit = async (body: NewCampaignBody, source: AudienceSource): Promise<void> => {
    try {
      let campaign = created;
      if (campaign === null) {
        setStep({ kind: 'creating' });
        campaign = await scheduler.createCampaign(body);
        setCreated(campaign);
      }
      await follow(campaign, await importAudience(campaign, source));
    } catch (thrown) {
      if (isAbort(thrown)) return;
      setStep({ kind: 'failed', error: toApiError(thrown) });
    }
  };

  return { step, created, submit };
}
