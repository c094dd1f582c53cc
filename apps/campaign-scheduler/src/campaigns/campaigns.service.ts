import { Injectable } from '@nestjs/common';
import { Channel, RunState } from '@ums/contracts';
import {
  CampaignEvent,
  CampaignState,
  nextFireAfter,
  parseCronSchedule,
  templateVariables,
  transitionCampaign,
  type TemplateContent,
} from '@ums/domain';
import { ConflictError, type FieldError, InvalidInputError, NotFoundError } from '@ums/platform';
import { DataSource, type EntityManager } from 'typeorm';
import { ulid } from 'ulid';
import { RunsRepository } from '../runs/runs.repository';
import { RunAction, RunsService } from '../runs/runs.service';
import { SchedulingService } from '../scheduling/scheduling.service';
import type { CampaignDetailView, CampaignView } from './campaign.view';
import { CampaignsRepository } from './campaigns.repository';
import { CampaignAction, type CreateCampaignDto, ScheduleKind } from './create-campaign.dto';

const RUN_ACTIONS_BY_CAMPAIGN_ACTION: Partial<Record<CampaignAction, [RunState[], RunAction][]>> = {
  [CampaignAction.Pause]: [[[RunState.Running, RunState.Scheduled], RunAction.Pause]],
  [CampaignAction.Resume]: [[[RunState.Paused], RunAction.Resume]],
  [CampaignAction.Stop]: [
    [[RunState.Running, RunState.Paused], RunAction.Stop],
    [[RunState.Pending, RunState.Scheduled], RunAction.Cancel],
  ],
};

const EVENT_BY_ACTION: Record<CampaignAction, CampaignEvent> = {
  [CampaignAction.Start]: CampaignEvent.Start,
  [CampaignAction.Pause]: CampaignEvent.Pause,
  [CampaignAction.Resume]: CampaignEvent.Resume,
  [CampaignAction.Stop]: CampaignEvent.Stop,
  [CampaignAction.Archive]: CampaignEvent.Archive,
};

/** Campaigns: creation with validated template and schedule, reads, and campaign-wide actions. */
@Injectable()
export class CampaignsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly campaigns: CampaignsRepository,
    private readonly runs: RunsRepository,
    private readonly runActions: RunsService,
    private readonly scheduling: SchedulingService,
  ) {}

  /** Creates a DRAFT campaign; with a sourceRequestId a repeated request returns the first one. */
  async create(dto: CreateCampaignDto, sourceRequestId: string | null = null): Promise<CampaignView> {
    const template = checkTemplate(dto.channel, dto.template);
    const schedule = checkSchedule(dto);
    await this.checkCredential(dto.tenantId, dto.credentialId, dto.channel);
    const id = await this.dataSource.transaction(async (manager) => {
      const inserted = await this.campaigns.insert(manager, {
        id: `cmp_${ulid()}`,
        tenantId: dto.tenantId,
        name: dto.name,
        channel: dto.channel,
        credentialId: dto.credentialId,
        template,
        defaultCountry: dto.defaultCountry?.toUpperCase() ?? null,
        scheduleKind: dto.schedule.kind,
        scheduleAt: schedule.at,
        cron: dto.schedule.kind === ScheduleKind.Cron ? (dto.schedule.cron as string).trim() : null,
        timeZone: schedule.timeZone,
        sourceRequestId,
      });
      return inserted.id;
    });
    return (await this.campaigns.find(id)) as CampaignView;
  }

  /** The credential must exist, belong to the tenant and send on the channel. */
  async checkCredential(tenantId: string, credentialId: string, channel: Channel): Promise<void> {
    const credential = await this.campaigns.credential(credentialId);
    if (credential === undefined || credential.tenantId !== tenantId) {
      throw InvalidInputError.field(
        'CREDENTIAL_NOT_FOUND',
        'credentialId',
        `no credential ${credentialId} for tenant ${tenantId}`,
      );
    }
    if (credential.channel !== channel) {
      throw InvalidInputError.field(
        'CREDENTIAL_CHANNEL_MISMATCH',
        'credentialId',
        `credential ${credentialId} sends ${credential.channel}, not ${channel}`,
      );
    }
  }

  async get(id: string): Promise<CampaignDetailView> {
    const campaign = await this.campaigns.find(id);
    if (campaign === undefined) throw new NotFoundError('CAMPAIGN_NOT_FOUND', `Campaign ${id} not found`);
    const [audienceSize, runs] = await Promise.all([this.campaigns.audienceSize(id), this.runs.list(id, 20)]);
    return { ...campaign, audienceSize, runs };
  }

  list(tenantId: string | undefined, limit: number, after?: string): Promise<CampaignView[]> {
    return this.campaigns.list(tenantId, limit, after);
  }

  /**
   * start: DRAFT -> ACTIVE and its first run (now, at its time) or its first cron fire time.
   * pause/resume/stop also act on the campaign's runs; archive only hides a finished campaign.
   */
  async act(id: string, action: CampaignAction): Promise<CampaignDetailView> {
    await this.dataSource.transaction(async (manager) => {
      const campaign = await this.campaigns.lock(manager, id);
      if (campaign === undefined) throw new NotFoundError('CAMPAIGN_NOT_FOUND', `Campaign ${id} not found`);
      const transition = transitionCampaign(campaign.state, EVENT_BY_ACTION[action]);
      if (!transition.ok) {
        throw new ConflictError(transition.code, `Campaign ${id}: ${transition.reason}`, {
          state: campaign.state,
        });
      }
      const now = await this.runs.dbNow();
      let nextFireAt: Date | null | undefined;
      if (campaign.schedule.kind === ScheduleKind.Cron && transition.next === CampaignState.Active) {
        // After start or resume, the next fire is in the future: a pause does not leave a fire to catch up.
        nextFireAt = nextFireAfter(campaign.schedule.cron as string, campaign.schedule.timeZone, now);
      }
      await this.campaigns.setState(manager, id, transition.next, nextFireAt);
      if (action === CampaignAction.Start && campaign.schedule.kind !== ScheduleKind.Cron) {
        const fireAt =
          campaign.schedule.kind === ScheduleKind.At ? new Date(campaign.schedule.at as string) : now;
        await this.runs.createOnce(manager, id, fireAt);
      }
      await this.applyToRuns(manager, id, action);
    });
    if (action === CampaignAction.Start || action === CampaignAction.Resume) this.scheduling.nudge();
    return this.get(id);
  }

  private async applyToRuns(
    manager: EntityManager,
    campaignId: string,
    action: CampaignAction,
  ): Promise<void> {
    for (const [states, runAction] of RUN_ACTIONS_BY_CAMPAIGN_ACTION[action] ?? []) {
      for (const run of await this.runs.lockByCampaign(manager, campaignId, states)) {
        await this.runActions.applyAction(manager, run, runAction);
      }
    }
  }
}

function checkTemplate(channel: Channel, template: TemplateContent): TemplateContent {
  const fields: FieldError[] = [];
  if (channel === Channel.Sms && template.templateName !== undefined) {
    fields.push({ field: 'template.templateName', reason: 'sms sends text only' });
  }
  if (channel === Channel.Email && (template.subject === undefined || template.subject.trim() === '')) {
    fields.push({ field: 'template.subject', reason: 'an email needs a subject' });
  }
  if (channel !== Channel.WhatsApp && template.text === undefined) {
    fields.push({ field: 'template.text', reason: `${channel} needs a text` });
  }
  const variables = templateVariables(template);
  if (!variables.ok) {
    const field = variables.field.startsWith('template') ? variables.field : `template.${variables.field}`;
    fields.push({ field, reason: variables.reason });
  }
  if (fields.length > 0) {
    throw new InvalidInputError(
      'TEMPLATE_INVALID',
      fields.map((f) => `${f.field}: ${f.reason}`).join('; '),
      fields,
    );
  }
  return template;
}

function checkSchedule(dto: CreateCampaignDto): { at: Date | null; timeZone: string } {
  const timeZone = dto.schedule.timeZone ?? 'UTC';
  switch (dto.schedule.kind) {
    case ScheduleKind.Now:
      return { at: null, timeZone };
    case ScheduleKind.At:
      return { at: new Date(dto.schedule.at as string), timeZone };
    case ScheduleKind.Cron: {
      const check = parseCronSchedule(dto.schedule.cron as string, timeZone);
      if (!check.ok)
        throw InvalidInputError.field('SCHEDULE_INVALID', `schedule.${check.field}`, check.reason);
      return { at: null, timeZone };
    }
  }
}
