/** At most this many attributes in one segment (each one more condition on every member read). */
export const MAX_SEGMENT_ATTRIBUTES = 10;
/** At most this many values one attribute may be one of. */
export const MAX_SEGMENT_VALUES = 100;
/** The same bound a variable's value has in an audience file. */
export const MAX_SEGMENT_VALUE_LENGTH = 1024;

/** Attribute names a segment may filter on: a member variable's name, plain letters, digits and _. */
const ATTRIBUTE_NAME = /^[A-Za-z0-9_]{1,64}$/;

/** One condition: the member's variable `name` equals one of `values` (exactly, as stored). */
export interface SegmentAttribute {
  readonly name: string;
  readonly values: readonly string[];
}

/** The members of a list a campaign takes: every condition holds (an empty segment: all members). */
export interface ContactListSegment {
  readonly attributes: readonly SegmentAttribute[];
}

export type SegmentVerdict =
  | { readonly ok: true; readonly segment: ContactListSegment }
  | { readonly ok: false; readonly field: string; readonly reason: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refuse(field: string, reason: string): SegmentVerdict {
  return { ok: false, field, reason };
}

/** The values of one attribute: a string, or a non-empty array of distinct strings. */
function attributeValues(
  field: string,
  raw: unknown,
): { ok: true; values: string[] } | { ok: false; field: string; reason: string } {
  const values = typeof raw === 'string' ? [raw] : raw;
  if (!Array.isArray(values) || values.length === 0) {
    return { ok: false, field, reason: 'must be a string or a non-empty array of strings' };
  }
  if (values.length > MAX_SEGMENT_VALUES) {
    return { ok: false, field, reason: `at most ${MAX_SEGMENT_VALUES} values are allowed` };
  }
  const seen = new Set<string>();
  for (const value of values as unknown[]) {
    if (typeof value !== 'string') return { ok: false, field, reason: 'every value must be a string' };
    if (value.length > MAX_SEGMENT_VALUE_LENGTH) {
      return { ok: false, field, reason: `a value is longer than ${MAX_SEGMENT_VALUE_LENGTH} characters` };
    }
    seen.add(value);
  }
  return { ok: true, values: [...seen] };
}

/**
 * Reads a segment as a request gives it: `{ "attributes": { "city": "Berlin", "plan": ["gold",
 * "silver"] } }`, each attribute a member variable that must equal the value, or one of the values.
 * Absent (undefined or null): every member. A refusal names the field at fault
 * (`segment.attributes.<name>`) and why.
 */
export function parseContactListSegment(input: unknown, field = 'segment'): SegmentVerdict {
  if (input === undefined || input === null) return { ok: true, segment: { attributes: [] } };
  if (!isRecord(input)) return refuse(field, 'must be an object with an attributes object');
  const unknown = Object.keys(input).filter((key) => key !== 'attributes');
  if (unknown.length > 0) return refuse(`${field}.${unknown[0]}`, 'is not a segment field (only attributes)');
  const attributes = input['attributes'];
  if (!isRecord(attributes)) {
    return refuse(`${field}.attributes`, 'must be an object of attribute names and values');
  }
  const entries = Object.entries(attributes);
  if (entries.length > MAX_SEGMENT_ATTRIBUTES) {
    return refuse(`${field}.attributes`, `at most ${MAX_SEGMENT_ATTRIBUTES} attributes are allowed`);
  }
  const parsed: SegmentAttribute[] = [];
  for (const [name, raw] of entries) {
    const at = `${field}.attributes.${name.slice(0, 64)}`;
    if (!ATTRIBUTE_NAME.test(name)) return refuse(at, 'an attribute name is 1 to 64 letters, digits or _');
    const values = attributeValues(at, raw);
    if (!values.ok) return values;
    parsed.push({ name, values: values.values });
  }
  return { ok: true, segment: { attributes: parsed } };
}

/** Whether a member's variables fall in the segment (the rule the SQL filter applies, for tests and callers). */
export function segmentMatches(
  segment: ContactListSegment,
  variables: Readonly<Record<string, string>> | null,
): boolean {
  return segment.attributes.every((attribute) => {
    const value =
      variables !== null && Object.hasOwn(variables, attribute.name) ? variables[attribute.name] : undefined;
    return value !== undefined && attribute.values.includes(value);
  });
}
