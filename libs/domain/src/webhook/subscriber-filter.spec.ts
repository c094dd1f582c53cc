import { RunLifecycleEvent } from '@ums/contracts';
import {
  RUN_WEBHOOK_EVENT_TYPES,
  type SubscriberFilter,
  subscriberMatches,
  WEBHOOK_EVENT_TYPES,
} from './subscriber-filter';

describe('subscriberMatches', () => {
  const all: SubscriberFilter = {
    tenantId: 't1',
    eventTypes: ['message.status', 'message.inbound'],
    campaignId: null,
  };

  it('matches only the own tenant', () => {
    expect(subscriberMatches(all, { tenantId: 't1', eventType: 'message.status', campaignId: 'c1' })).toBe(
      true,
    );
    expect(subscriberMatches(all, { tenantId: 't2', eventType: 'message.status', campaignId: 'c1' })).toBe(
      false,
    );
  });

  it('matches only chosen event types', () => {
    const statusOnly = { ...all, eventTypes: ['message.status'] };
    expect(subscriberMatches(statusOnly, { tenantId: 't1', eventType: 'message.inbound' })).toBe(false);
    expect(
      subscriberMatches(statusOnly, { tenantId: 't1', eventType: 'message.status', campaignId: 'c' }),
    ).toBe(true);
  });

  it('matches only the filtered campaign when one is set (inbound events carry none)', () => {
    const one = { ...all, campaignId: 'c1' };
    expect(subscriberMatches(one, { tenantId: 't1', eventType: 'message.status', campaignId: 'c1' })).toBe(
      true,
    );
    expect(subscriberMatches(one, { tenantId: 't1', eventType: 'message.status', campaignId: 'c2' })).toBe(
      false,
    );
    expect(subscriberMatches(one, { tenantId: 't1', eventType: 'message.inbound' })).toBe(false);
  });

  it('offers one run.<event> type per lifecycle event, each matched only by subscribers that name it', () => {
    expect(RUN_WEBHOOK_EVENT_TYPES).toEqual(Object.values(RunLifecycleEvent).map((e) => `run.${e}`));
    expect(WEBHOOK_EVENT_TYPES).toEqual(['message.status', 'message.inbound', ...RUN_WEBHOOK_EVENT_TYPES]);
    const completed = { tenantId: 't1', eventType: 'run.completed', campaignId: 'c1' } as const;
    expect(subscriberMatches(all, completed)).toBe(false);
    expect(subscriberMatches({ ...all, eventTypes: ['run.completed'] }, completed)).toBe(true);
    expect(subscriberMatches({ ...all, eventTypes: ['run.started'] }, completed)).toBe(false);
    expect(subscriberMatches({ ...all, eventTypes: ['run.completed'], campaignId: 'c2' }, completed)).toBe(
      false,
    );
  });
});
