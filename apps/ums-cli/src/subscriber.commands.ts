import type { DeliveryPage, DispatcherOperations, QueryOf, SubscriberView } from '@ums/client';
import { parseIsoTime } from './cli-args.parser';
import { UsageError } from './cli.errors';
import type { CommandContext, CommandSpec } from './command.types';
import { formatFields, formatTable, formatTime } from './output.formatter';

type DeliveryState = NonNullable<QueryOf<DispatcherOperations['Deliveries_list']>['state']>;

const DELIVERY_STATES: readonly DeliveryState[] = [
  'PENDING',
  'DELIVERED',
  'RETRYING',
  'DEAD_LETTERED',
  'MISSED',
];

function formatSubscriber(s: SubscriberView): string {
  return formatFields([
    ['id', s.id],
    ['tenant', s.tenantId],
    ['url', s.url],
    ['events', s.eventTypes.join(', ')],
    ['campaign', s.campaignId],
    ['events per request', s.maxEventsPerRequest],
    ['state', s.state],
    ['failures in window', s.failuresInWindow],
    ['last error', s.lastError],
    ['last success', formatTime(s.lastSuccessAt)],
    ['dead since', formatTime(s.deadSince)],
  ]);
}

function deliveryTable(page: DeliveryPage): string {
  const table = formatTable(
    ['ID', 'EVENT', 'TYPE', 'STATE', 'ATTEMPTS', 'STATUS', 'LAST ERROR', 'CREATED'],
    page.items.map((d) => [
      d.id,
      d.eventId,
      d.eventType,
      d.state,
      d.attempts,
      d.lastStatusCode,
      d.lastError,
      formatTime(d.createdAt),
    ]),
  );
  return page.nextBefore === null ? table : `${table}more: --before ${page.nextBefore}\n`;
}

async function listDeliveries(context: CommandContext, state: DeliveryState | undefined): Promise<void> {
  const { input } = context;
  const id = input.arg(0, 'SUBSCRIBER_ID');
  input.noMoreArgs(1);
  const page = await context.dispatcher().deliveries.list(id, {
    state,
    limit: input.int('limit', { min: 1, max: 500 }),
    before: input.string('before'),
  });
  context.result(page, () => deliveryTable(page));
}

const list: CommandSpec = {
  group: 'subscribers',
  name: 'list',
  args: [],
  options: ['limit', 'after'],
  summary: 'list webhook subscribers with their state',
  async run(context) {
    const { input } = context;
    input.noMoreArgs(0);
    const page = await context.dispatcher().subscribers.list({
      limit: input.int('limit', { min: 1, max: 500 }),
      after: input.string('after'),
    });
    context.result(page, () => {
      const table = formatTable(
        ['ID', 'TENANT', 'STATE', 'URL', 'EVENTS', 'CAMPAIGN', 'DEAD SINCE'],
        page.items.map((s) => [
          s.id,
          s.tenantId,
          s.state,
          s.url,
          s.eventTypes.join(','),
          s.campaignId,
          formatTime(s.deadSince),
        ]),
      );
      return page.nextAfter === null ? table : `${table}more: --after ${page.nextAfter}\n`;
    });
  },
};

const show: CommandSpec = {
  group: 'subscribers',
  name: 'show',
  args: ['SUBSCRIBER_ID'],
  options: [],
  summary: 'one subscriber: state, failures in the window, last error',
  async run(context) {
    const id = context.input.arg(0, 'SUBSCRIBER_ID');
    context.input.noMoreArgs(1);
    const subscriber = await context.dispatcher().subscribers.get(id);
    context.result(subscriber, () => formatSubscriber(subscriber));
  },
};

const resurrect: CommandSpec = {
  group: 'subscribers',
  name: 'resurrect',
  args: ['SUBSCRIBER_ID'],
  options: [],
  summary: 'bring a DEAD or DISABLED subscriber back: what it missed is replayed in order, then it is ALIVE',
  async run(context) {
    const id = context.input.arg(0, 'SUBSCRIBER_ID');
    context.input.noMoreArgs(1);
    const subscriber = await context.dispatcher().deliveries.resurrect(id);
    context.result(
      subscriber,
      () =>
        `subscriber ${subscriber.id} is ${subscriber.state}; it turns ALIVE once its missed deliveries are replayed\n`,
    );
  },
};

const deliveries: CommandSpec = {
  group: 'subscribers',
  name: 'deliveries',
  args: ['SUBSCRIBER_ID'],
  options: ['state', 'limit', 'before'],
  summary: "a subscriber's deliveries, newest first",
  async run(context) {
    const text = context.input.string('state')?.toUpperCase();
    const state = DELIVERY_STATES.find((known) => known === text);
    if (text !== undefined && state === undefined) {
      throw new UsageError(`--state must be one of ${DELIVERY_STATES.join(', ')}`, context.input.usage);
    }
    await listDeliveries(context, state);
  },
};

const dlqList: CommandSpec = {
  group: 'dlq',
  name: 'list',
  args: ['SUBSCRIBER_ID'],
  options: ['limit', 'before'],
  summary: "a subscriber's dead-lettered deliveries (retries exhausted), newest first",
  run: (context) => listDeliveries(context, 'DEAD_LETTERED'),
};

const dlqReplay: CommandSpec = {
  group: 'dlq',
  name: 'replay',
  args: ['SUBSCRIBER_ID', 'DELIVERY_ID?'],
  options: ['since'],
  summary:
    'attempt a delivered or dead-lettered delivery again, or every event since --since (from the topics)',
  async run(context) {
    const { input } = context;
    const id = input.arg(0, 'SUBSCRIBER_ID');
    const deliveryId = input.args[1];
    input.noMoreArgs(2);
    const since = input.string('since');
    if ((deliveryId === undefined) === (since === undefined)) {
      throw new UsageError('give a DELIVERY_ID or --since TIME (one of them)', input.usage);
    }
    if (deliveryId !== undefined) {
      const delivery = await context.dispatcher().deliveries.replayOne(id, deliveryId);
      context.result(delivery, () => `delivery ${delivery.id} queued again (${delivery.state})\n`);
      return;
    }
    const result = await context.dispatcher().deliveries.replaySince(id, {
      since: parseIsoTime(since ?? '', '--since', input.usage),
    });
    context.result(result, () => `${result.replayed} deliveries queued again\n`);
  },
};

export const SUBSCRIBER_COMMANDS: readonly CommandSpec[] = [list, show, resurrect, deliveries];
export const DLQ_COMMANDS: readonly CommandSpec[] = [dlqList, dlqReplay];
