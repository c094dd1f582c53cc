import {
  CLOUDEVENTS_CONTENT_TYPE,
  CLOUDEVENTS_SPEC_VERSION,
  CloudEventHeaders,
  isCanonicalTimestamp,
  type TopicCloudEvent,
} from '@ums/contracts';
import type { IHeaders } from 'kafkajs';

/**
 * The CloudEvents headers of one topic's records (Kafka protocol binding, binary content mode): the
 * topic's type, the producing service's source, the spec version and the content type are fixed per
 * topic and producer; `ce_id`, `ce_time` and `ce_subject` are read from each value. Built once per
 * topic, so a record costs one headers object whose values are strings the value already holds.
 */
export class CloudEventStamp {
  private readonly type: string;
  private readonly source: string;
  private readonly idField: string;
  private readonly subjectField: string | undefined;
  private readonly timeField: string | undefined;

  constructor(options: { readonly cloudEvent: TopicCloudEvent; readonly source: string }) {
    this.type = options.cloudEvent.type;
    this.source = options.source;
    this.idField = options.cloudEvent.idField;
    this.subjectField = options.cloudEvent.subjectField;
    this.timeField = options.cloudEvent.timeField;
  }

  /**
   * The headers of a record whose value is `value`, after the caller's own (`base`). `now` gives the
   * time of an event whose value says none (called at most once per publish by its caller's cache).
   */
  headersOf(value: object, base: IHeaders | undefined, now: () => string): IHeaders {
    const fields = value as Readonly<Record<string, unknown>>;
    // Literal names (CloudEventHeaders' values, checked by the spec): one object shape per topic, built
    // from a boilerplate, where computed names or a spread cost a property definition each.
    const id = String(fields[this.idField]);
    const time = this.timeOf(fields, now);
    const subject = this.subjectField === undefined ? undefined : fields[this.subjectField];
    const headers: IHeaders =
      typeof subject === 'string' && subject !== ''
        ? {
            ce_specversion: CLOUDEVENTS_SPEC_VERSION,
            ce_id: id,
            ce_type: this.type,
            ce_source: this.source,
            ce_time: time,
            ce_subject: subject,
            'content-type': CLOUDEVENTS_CONTENT_TYPE,
          }
        : {
            ce_specversion: CLOUDEVENTS_SPEC_VERSION,
            ce_id: id,
            ce_type: this.type,
            ce_source: this.source,
            ce_time: time,
            'content-type': CLOUDEVENTS_CONTENT_TYPE,
          };
    return base === undefined ? headers : { ...base, ...headers };
  }

  /** RFC 3339: the value's own time as every producer of ours writes it, another ISO form normalized, else now. */
  private timeOf(fields: Readonly<Record<string, unknown>>, now: () => string): string {
    const time = this.timeField === undefined ? undefined : fields[this.timeField];
    if (typeof time !== 'string') return now();
    if (isCanonicalTimestamp(time)) return time;
    const parsed = Date.parse(time);
    return Number.isNaN(parsed) ? now() : new Date(parsed).toISOString();
  }

  /**
   * The headers of a record forwarded as bytes (a replayed dead letter): its own when it carries an
   * event id already (the original event's, kept by the dead letter), else stamped from its value
   * when that is a JSON object; a value that is not stays as it is.
   */
  rawHeadersOf(
    value: Buffer | string | null,
    base: IHeaders | undefined,
    now: () => string,
  ): IHeaders | undefined {
    if (base?.[CloudEventHeaders.id] !== undefined || value === null) return base;
    let parsed: unknown;
    try {
      parsed = JSON.parse(typeof value === 'string' ? value : value.toString('utf8'));
    } catch {
      // Not JSON: not an event of this topic's schema, so there is nothing to say about it.
      return base;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return base;
    if ((parsed as Record<string, unknown>)[this.idField] === undefined) return base;
    return this.headersOf(parsed, base, now);
  }
}

/** `now()` as an RFC 3339 time, computed on the first call only: one clock read for a whole publish. */
export function onceNow(): () => string {
  let at: string | undefined;
  return () => (at ??= new Date().toISOString());
}
