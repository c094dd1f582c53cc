import { Injectable } from '@nestjs/common';
import { type CompiledTemplate, compileTemplate, type TemplateContent } from '@ums/domain';
import { jsonColumn, selectRows } from '@ums/platform';
import { DataSource } from 'typeorm';
import { SendingConfig } from './sending.config';

/** A campaign's content, compiled once, or why it cannot be used. */
export type CampaignContent =
  | { readonly ok: true; readonly template: CompiledTemplate }
  | { readonly ok: false; readonly detail: string };

/** A campaign's template: JSON (text on MariaDB). */
interface TemplateRow {
  readonly template: unknown;
}

// Bounds the cache if campaign ids keep changing; active campaigns are few at any moment.
const MAX_CACHED = 10_000;

/**
 * Campaign templates by campaign id, read once and compiled once per CAMPAIGN_CONTENT_CACHE_MS
 * (concurrent reads of one campaign share one query): batches carry recipients and variables, not
 * the content, so a million-recipient run reads its template a handful of times, not per batch.
 */
@Injectable()
export class CampaignContentRepository {
  private readonly cache = new Map<
    string,
    { readonly expiresAt: number; readonly load: Promise<CampaignContent> }
  >();

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: SendingConfig,
  ) {}

  contentOf(campaignId: string): Promise<CampaignContent> {
    const now = Date.now();
    const cached = this.cache.get(campaignId);
    if (cached !== undefined && cached.expiresAt > now) return cached.load;
    if (this.cache.size >= MAX_CACHED) this.cache.clear();
    const entry = { expiresAt: now + this.config.CAMPAIGN_CONTENT_CACHE_MS, load: this.read(campaignId) };
    this.cache.set(campaignId, entry);
    // A database error is not cached: the next batch asks again.
    entry.load.catch(() => {
      if (this.cache.get(campaignId) === entry) this.cache.delete(campaignId);
    });
    return entry.load;
  }

  private async read(campaignId: string): Promise<CampaignContent> {
    const [row] = await selectRows<TemplateRow>(
      this.dataSource,
      'SELECT template FROM campaigns WHERE id = ?',
      [campaignId],
    );
    return campaignContentOf(campaignId, row);
  }
}

/** A campaign's row compiled, or why it cannot be used (no such campaign, an invalid template). */
function campaignContentOf(campaignId: string, row: TemplateRow | undefined): CampaignContent {
  if (row === undefined) return { ok: false, detail: `campaign ${campaignId} does not exist` };
  const compiled = compileTemplate(jsonColumn(row.template) as TemplateContent);
  return compiled.ok
    ? { ok: true, template: compiled.template }
    : { ok: false, detail: `campaign ${campaignId} ${compiled.field}: ${compiled.reason}` };
}
