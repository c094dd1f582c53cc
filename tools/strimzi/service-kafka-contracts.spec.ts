import 'reflect-metadata';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  AllTopics,
  type KafkaService,
  kafkaAccessOf,
  ServiceKafkaContracts,
  type TopicDefinition,
  Topics,
} from '@ums/contracts';
import { PATH_METADATA } from '@nestjs/common/constants';
import { CONSUME_TOPIC, type ConsumeTopicOptions } from '@ums/platform';

/**
 * ServiceKafkaContracts (libs/contracts) is what the Strimzi ACLs are generated from: it must say what
 * the services really do. Consumers are compared with the handlers' @ConsumeTopic registrations, each
 * on a controller (the Kafka transport is given controllers' event patterns only; start-up then
 * refuses a service whose registered handlers differ from its contract);
 * publishes naming a topic (`publish(Topics.x`, `emitTo(Topics.x`, `publishRaw(Topics.x.name`) must be allowed writes.
 */
const root = join(__dirname, '..', '..');
const SERVICES = Object.keys(ServiceKafkaContracts) as KafkaService[];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'test' ? [] : sourceFiles(path);
    return /\.ts$/.test(entry.name) && !/\.(int-|e2e-)?spec\.ts$/.test(entry.name) ? [path] : [];
  });
}

interface Registration {
  /** The class holding the handler: a controller, since the Kafka transport gets only controllers' patterns. */
  readonly controller: boolean;
  readonly groupId: string;
  readonly topic: string;
  readonly retryTiers: readonly string[];
  readonly consumesRetryTiers: boolean;
}

function registrationsOf(service: KafkaService): Registration[] {
  const found: Registration[] = [];
  for (const file of sourceFiles(join(root, 'apps', service, 'src'))) {
    if (!readFileSync(file, 'utf8').includes('@ConsumeTopic(')) continue;
    const exported = require(file) as Record<string, unknown>;
    for (const value of Object.values(exported)) {
      if (typeof value !== 'function') continue;
      const proto = value.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(proto)) {
        const method = proto[name];
        if (typeof method !== 'function') continue;
        const options = Reflect.getMetadata(CONSUME_TOPIC, method) as ConsumeTopicOptions<object> | undefined;
        if (options === undefined) continue;
        found.push({
          controller: Reflect.getMetadata(PATH_METADATA, value) !== undefined,
          groupId: options.groupId,
          topic: options.topic.name,
          retryTiers: (options.retryTiers ?? []).map((t) => t.name),
          consumesRetryTiers: options.consumeRetryTiers !== false,
        });
      }
    }
  }
  return found.sort((a, b) => a.groupId.localeCompare(b.groupId));
}

const TOPIC_KEYS = new Map(Object.entries(Topics).map(([key, t]) => [key, t as TopicDefinition<object>]));

/** Topics named in publish calls of the service's code. */
function publishedTopics(service: KafkaService): string[] {
  const names = new Set<string>();
  for (const file of sourceFiles(join(root, 'apps', service, 'src'))) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/\.(?:publish(?:Raw)?|emitTo)\(\s*Topics\.(\w+)/g)) {
      const topic = TOPIC_KEYS.get(match[1] ?? '');
      if (topic === undefined) throw new Error(`${relative(root, file)}: unknown topic Topics.${match[1]}`);
      names.add(topic.name);
    }
  }
  return [...names];
}

describe('ServiceKafkaContracts', () => {
  it.each(SERVICES)('lists exactly the consumer registrations of %s', (service) => {
    const declared = ServiceKafkaContracts[service].consumers
      .map((c) => ({
        groupId: c.groupId,
        topic: c.topic.name,
        retryTiers: (c.retryTiers ?? []).map((t) => t.name),
        consumesRetryTiers: c.consumesRetryTiers !== false,
        controller: true,
      }))
      .sort((a, b) => a.groupId.localeCompare(b.groupId));
    expect(registrationsOf(service)).toEqual(declared);
  });

  it('finds the handlers it compares with (the scan is not empty)', () => {
    expect(SERVICES.flatMap(registrationsOf).length).toBeGreaterThanOrEqual(9);
  });

  it.each(SERVICES)('allows %s every topic its code publishes to', (service) => {
    const published = publishedTopics(service);
    expect(published.length).toBeGreaterThan(0);
    expect(published.filter((name) => !kafkaAccessOf(service).writes.includes(name))).toEqual([]);
  });

  it('gives every topic a reader and a writer, and each group to one service', () => {
    const accesses = SERVICES.map(kafkaAccessOf);
    const read = new Set(accesses.flatMap((a) => a.reads));
    const written = new Set(accesses.flatMap((a) => a.writes));
    // Subscriber alerts are for consumers outside UMS: no service reads them.
    const unread = AllTopics.map((t) => t.name).filter((name) => !read.has(name));
    expect(unread).toEqual([Topics.subscriberAlerts.name]);
    expect(AllTopics.map((t) => t.name).filter((name) => !written.has(name))).toEqual([]);
    const groups = accesses.flatMap((a) => a.groups);
    expect(new Set(groups).size).toBe(groups.length);
  });

  it('derives the retry group and the platform writes of a consumer with tiers', () => {
    const sender = kafkaAccessOf('notification-sender');
    expect(sender.groups).toEqual([
      'notification-sender',
      'notification-sender.retry',
      'notification-sender.priority',
      'notification-sender.status',
    ]);
    expect(sender.reads).toContain(Topics.sendRetry10m.name);
    expect(kafkaAccessOf('batch-expander').writes).toContain(Topics.deadLetters.name);
    expect(kafkaAccessOf('webhook-ingest')).toEqual({
      reads: [],
      writes: [Topics.providerEvents.name],
      groups: [],
    });
  });

  it("gives a range read (the dispatcher's replay by time) its group and topics", () => {
    const dispatcher = kafkaAccessOf('webhook-dispatcher');
    expect(dispatcher.groups).toContain('webhook-dispatcher.replay');
    expect(dispatcher.reads).toEqual(
      expect.arrayContaining([Topics.messageStatus.name, Topics.inboundMessages.name]),
    );
  });
});
