import { Injectable } from '@nestjs/common';
import { CAMPAIGN_PRIORITY, CampaignErrorCode, Channel, CredentialErrorCode, RunState } from '@ums/contracts';
import {
  CampaignEvent,
  CampaignState,
  checkOneOffTime,
  findControlCharacter,
  isValidTimeZone,
  LINE_BREAKS_AND_TABS,
  nextFireAfter,
  parseCronSchedule,
  templateVariables,
  transitionCampaign,
  type TemplateContent,
} from '@ums/domain';
import {
  ConflictError,
  type FieldError,
  InvalidInputError,
  NotFoundError,
  type TenantFilter,
} from '@ums/platform';
import { DataSource, type EntityManager } from 'typeorm';
import { ulid } from 'ulid';
import { RunsRepository } from '../runs/runs.repository';
import { RunAction, RunsService } from '../runs/runs.service';
import { SchedulingService } from '../scheduling/scheduling.service';
import type { CampaignDetailView, CampaignView } from './campaign.view';
import { CampaignsRepository } from './campaigns.repository';
import { CampaignAction, ScheduleKind } from './create-campaign.dto';

/** A schedule as the API and the send-requests consumer give it. */
export interface ScheduleInput {
  readonly kind: ScheduleKind;
  readonly at?: string;
  readonly cron?: string;
  readonly timeZone?: string;
}

/** What a campaign is created from: the API's body (with its tenant) or a producer's bulk request. */
export interface CampaignInput {
  readonly tenantId: string;
  readonly name: string;
  readonly channel: Channel;
  readonly credentialId: string;
  readonly template: TemplateContent;
  readonly defaultCountry?: string;
  readonly schedule: ScheduleInput;
  /** 1..10 (CAMPAIGN_PRIORITY); the default when absent. */
  readonly priority?: number;
}

/** What PATCH /v1/campaigns/:campaignId changes: the fields given. */
export interface CampaignChanges {
  readonly priority?: number;
}

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

  /**
   * Creates a DRAFT campaign for an API caller. A one-off time must name its UTC offset and may be
   * at most ONE_OFF_GRACE_MS in the past (a producer's sendAt, through create, is taken as given:
   * a request that waited on Kafka still sends).
   */
  async createFromApi(input: CampaignInput): Promise<CampaignView> {
    if (input.schedule.kind !== ScheduleKind.At) return this.create(input);
    const check = checkOneOffTime(input.schedule.at ?? '', await this.runs.dbNow());
    if (!check.ok)
      throw InvalidInputError.field(CampaignErrorCode.ScheduleInvalid, 'schedule.at', check.reason);
    return this.create({ ...input, schedule: { ...input.schedule, at: check.at.toISOString() } });
  }

  /** Creates a DRAFT campaign; with a sourceRequestId a repeated request returns the first one. */
  async create(dto: CampaignInput, sourceRequestId: string | null = null): Promise<CampaignView> {
    const template = checkTemplate(dto.channel, dto.template);
    const schedule = checkSchedule(dto.schedule);
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
        cron: schedule.cron,
        timeZone: schedule.timeZone,
        sourceRequestId,
        priority: dto.priority ?? CAMPAIGN_PRIORITY.default,
      });
      return inserted.id;
    });
    return (await this.campaigns.find(id, dto.tenantId)) as CampaignView;
  }

  /** The credential must exist, belong to the tenant and send on the channel. */
  async checkCredential(tenantId: string, credentialId: string, channel: Channel): Promise<void> {
    const credential = await this.campaigns.credential(credentialId);
    if (credential === undefined || credential.tenantId !== tenantId) {
      throw InvalidInputError.field(
        CredentialErrorCode.NotFound,
        'credentialId',
        `no credential ${credentialId} for tenant ${tenantId}`,
      );
    }
    if (credential.channel !== channel) {
      throw InvalidInputError.field(
        CredentialErrorCode.ChannelMismatch,
        'credentialId',
        `credential ${credentialId} sends ${credential.channel}, not ${channel}`,
      );
    }
  }

  /** The campaign with its audience size and latest runs; another tenant's is 404 as a missing one. */
  async get(id: string, tenant: TenantFilter): Promise<CampaignDetailView> {
    const campaign = await this.campaigns.find(id, tenant);
    if (campaign === undefined) throw campaignNotFound(id);
    const [audienceSize, runs] = await Promise.all([this.campaigns.audienceSize(id), this.runs.list(id, 20)]);
    return { ...campaign, audienceSize, runs };
  }

  /**
   * Changes the fields given, in any state. A running campaign's next batches carry a new priority
   * (the expander reads it with the run's progress); batches already published keep theirs.
   * Another tenant's campaign is 404 as a missing one.
   */
  async update(id: string, changes: CampaignChanges, tenant: TenantFilter): Promise<CampaignDetailView> {
    await this.dataSource.transaction(async (manager) => {
      const campaign = await this.campaigns.lock(manager, id, tenant);
      if (campaign === undefined) throw campaignNotFound(id);
      if (changes.priority !== undefined && changes.priority !== campaign.priority) {
        await this.campaigns.setPriority(manager, id, changes.priority);
      }
    });
    return this.get(id, tenant);
  }

  list(tenant: TenantFilter, limit: number, after?: string): Promise<CampaignView[]> {
    return this.campaigns.list(tenant, limit, after);
  }

  /**
   * start: DRAFT -> ACTIVE and its first run (now, at its time) or its first cron fire time.
   * pause/resume/stop also act on the campaign's runs; archive only hides a finished campaign.
   * Another tenant's campaign is 404 as a missing one.
   */
  async act(id: string, action: CampaignAction, tenant: TenantFilter): Promise<CampaignDetailView> {
    await this.dataSource.transaction(async (manager) => {
      const campaign = await this.campaigns.lock(manager, id, tenant);
      if (campaign === undefined) throw campaignNotFound(id);
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
    return this.get(id, tenant);
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

function campaignNotFound(id: string): NotFoundError {
  return new NotFoundError(CampaignErrorCode.NotFound, `Campaign ${id} not found`);
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
  fields.push(...controlCharacterProblems(template));
  const variables = templateVariables(template);
  if (!variables.ok) {
    const field = variables.field.startsWith('template') ? variables.field : `template.${variables.field}`;
    fields.push({ field, reason: variables.reason });
  }
  if (fields.length > 0) {
    throw new InvalidInputError(
      CampaignErrorCode.TemplateInvalid,
      fields.map((f) => `${f.field}: ${f.reason}`).join('; '),
      fields,
    );
  }
  return template;
}

/** Control characters: a text may hold line breaks and tabs, the other fields none. */
function controlCharacterProblems(template: TemplateContent): FieldError[] {
  const fields: FieldError[] = [];
  const check = (field: string, value: string | undefined, allowed = ''): void => {
    const found = value === undefined ? undefined : findControlCharacter(value, allowed);
    if (found !== undefined) fields.push({ field, reason: `contains the control character ${found}` });
  };
  check('template.text', template.text, LINE_BREAKS_AND_TABS);
  check('template.subject', template.subject);
  check('template.templateName', template.templateName);
  check('template.templateLanguage', template.templateLanguage);
  template.templateParameters?.forEach((parameter, i) =>
    check(`template.templateParameters[${i}]`, parameter),
  );
  return fields;
}

function scheduleInvalid(field: string, reason: string): InvalidInputError {
  return InvalidInputError.field(CampaignErrorCode.ScheduleInvalid, `schedule.${field}`, reason);
}

/** The time zone (any kind), the fields of the kind only, the cron expression or the one-off time. */
function checkSchedule(schedule: ScheduleInput): { at: Date | null; cron: string | null; timeZone: string } {
  const timeZone = schedule.timeZone ?? 'UTC';
  if (!isValidTimeZone(timeZone)) {
    throw scheduleInvalid('timeZone', `unknown time zone ${JSON.stringify(timeZone)} (use an IANA name)`);
  }
  if (schedule.kind !== ScheduleKind.At && schedule.at !== undefined) {
    throw scheduleInvalid('at', `only a schedule of kind at has a time, not kind ${schedule.kind}`);
  }
  if (schedule.kind !== ScheduleKind.Cron && schedule.cron !== undefined) {
    throw scheduleInvalid(
      'cron',
      `only a schedule of kind cron has an expression, not kind ${schedule.kind}`,
    );
  }
  switch (schedule.kind) {
    case ScheduleKind.Now:
      return { at: null, cron: null, timeZone };
    case ScheduleKind.At: {
      const at = new Date(schedule.at ?? '');
      if (Number.isNaN(at.getTime())) throw scheduleInvalid('at', 'must be an ISO 8601 time');
      return { at, cron: null, timeZone };
    }
    case ScheduleKind.Cron: {
      const cron = (schedule.cron ?? '').trim();
      const check = parseCronSchedule(cron, timeZone);
      if (!check.ok) throw scheduleInvalid(check.field, check.reason);
      return { at: null, cron, timeZone };
    }
  }
}
