import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DiagnosticSeverity, Parser } from '@asyncapi/parser';
import { AllTopics, decodeMessage, type TopicDefinition, Topics } from '@ums/contracts';
import { workspaceRoot } from '@ums/testing';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { channelIdOf, messageIdOf, renderAsyncApiFiles } from './asyncapi.renderer';
import { schemaFileOf } from './message-schema.renderer';

const root = join(workspaceRoot(), 'docs', 'asyncapi');
const read = (path: string): string => readFileSync(join(root, path), 'utf8');
const ajv = addFormats(new Ajv({ allErrors: true, strict: true, strictTypes: false, strictRequired: false }));

type Json = Record<string, unknown>;

describe('docs/asyncapi', () => {
  it('matches the contracts (regenerate with npm run docs:asyncapi)', () => {
    const files = renderAsyncApiFiles();
    const committed = [
      'asyncapi.yaml',
      ...readdirSync(join(root, 'schemas')).map((name) => `schemas/${name}`),
    ];
    expect(committed.sort()).toEqual([...files.keys()].sort());
    for (const [path, text] of files) expect({ path, text: read(path) }).toEqual({ path, text });
  });

  it('is an AsyncAPI 3.0 document without errors or warnings, one channel per topic', async () => {
    const { document, diagnostics } = await new Parser().parse(read('asyncapi.yaml'));
    const problems = diagnostics
      .filter((d) => d.severity === DiagnosticSeverity.Error || d.severity === DiagnosticSeverity.Warning)
      .map((d) => `${d.code} ${d.message} at ${d.path.join('.')}`);
    expect(problems).toEqual([]);
    if (document === undefined) throw new Error('the parser returned no document');
    expect(document.version()).toBe('3.0.0');
    expect(
      document
        .channels()
        .all()
        .map((c) => c.address())
        .sort(),
    ).toEqual(AllTopics.map((t) => t.name).sort());
    for (const topic of AllTopics) {
      const channel = document.channels().get(channelIdOf(topic));
      const binding = channel?.bindings().get('kafka')?.value<Json>();
      expect({ topic: topic.name, partitions: binding?.['partitions'] }).toEqual({
        topic: topic.name,
        partitions: topic.partitions,
      });
      const headers = Object.keys(channel?.messages().get(messageIdOf(topic))?.headers()?.properties() ?? {});
      expect({
        topic: topic.name,
        cloudEvents: headers.filter((h) => h.startsWith('ce_')).length > 0,
      }).toEqual({
        topic: topic.name,
        cloudEvents: topic.cloudEvent !== undefined,
      });
      // Some service of the platform sends to every topic (service-access.ts).
      const actions = (channel?.operations().all() ?? []).map((o) => o.action());
      expect({ topic: topic.name, sent: actions.includes('send') }).toEqual({
        topic: topic.name,
        sent: true,
      });
    }
  });

  it('holds sample messages that their schema, the decoder and the header schema accept', () => {
    const document = parse(read('asyncapi.yaml')) as { channels: Record<string, Json> };
    const values = readdirSync(join(root, 'examples')).filter((name) => !name.endsWith('.headers.json'));
    const topicsSampled = new Set<string>();
    for (const name of values) {
      const topic = topicOfExample(name);
      topicsSampled.add(topic.name);
      const text = read(`examples/${name}`);
      const value = JSON.parse(text) as Json;
      const validate = ajv.compile(JSON.parse(read(schemaFileOf(topic.value))) as Json);
      expect({ name, valid: validate(value), errors: validate.errors }).toEqual({
        name,
        valid: true,
        errors: null,
      });
      expect({ name, decoded: decodeMessage(topic.value, text) }).toMatchObject({
        name,
        decoded: { ok: true },
      });
      const headersFile = `examples/${name.replace(/\.json$/, '.headers.json')}`;
      expect({ name, headers: existsSync(join(root, headersFile)) }).toEqual({
        name,
        headers: topic.cloudEvent !== undefined,
      });
      if (topic.cloudEvent === undefined) continue;
      const headers = JSON.parse(read(headersFile)) as Json;
      const message = (document.channels[channelIdOf(topic)]?.['messages'] as Record<string, Json>)[
        messageIdOf(topic)
      ];
      const validateHeaders = ajv.compile(message?.['headers'] as Json);
      expect({ headersFile, valid: validateHeaders(headers), errors: validateHeaders.errors }).toEqual({
        headersFile,
        valid: true,
        errors: null,
      });
      const { idField, subjectField, timeField } = topic.cloudEvent;
      expect(headers['ce_id']).toBe(value[idField]);
      if (subjectField !== undefined) expect(headers['ce_subject']).toBe(value[subjectField]);
      if (timeField !== undefined) expect(headers['ce_time']).toBe(value[timeField]);
    }
    // The README's producer and consumer use these.
    expect([...topicsSampled]).toEqual(
      expect.arrayContaining([Topics.sendRequests.name, Topics.messageStatus.name]),
    );
  });
});

/** The topic of `examples/<topic>.json` or `examples/<topic>.<label>.json`. */
function topicOfExample(name: string): TopicDefinition<object> {
  const topic = AllTopics.find((t) => {
    if (!name.startsWith(`${t.name}.`)) return false;
    const rest = name.slice(t.name.length + 1);
    return rest === 'json' || /^[a-z0-9-]+\.json$/.test(rest);
  });
  if (topic === undefined) throw new Error(`examples/${name} does not start with a topic name`);
  return topic;
}
