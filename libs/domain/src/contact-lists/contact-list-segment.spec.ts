import {
  MAX_SEGMENT_ATTRIBUTES,
  MAX_SEGMENT_VALUES,
  parseContactListSegment,
  segmentMatches,
} from './contact-list-segment';

describe('parseContactListSegment', () => {
  it('reads equality and one-of attributes, values deduplicated, in the order given', () => {
    expect(
      parseContactListSegment({ attributes: { city: 'Berlin', plan: ['gold', 'silver', 'gold'] } }),
    ).toEqual({
      ok: true,
      segment: {
        attributes: [
          { name: 'city', values: ['Berlin'] },
          { name: 'plan', values: ['gold', 'silver'] },
        ],
      },
    });
  });

  it('takes every member without a segment or with no attributes', () => {
    expect(parseContactListSegment(undefined)).toEqual({ ok: true, segment: { attributes: [] } });
    expect(parseContactListSegment(null)).toEqual({ ok: true, segment: { attributes: [] } });
    expect(parseContactListSegment({ attributes: {} })).toEqual({ ok: true, segment: { attributes: [] } });
  });

  it.each([
    ['a string', 'city=Berlin', 'segment', 'must be an object with an attributes object'],
    ['an array', [], 'segment', 'must be an object with an attributes object'],
    [
      'another field',
      { attributes: {}, where: 'x' },
      'segment.where',
      'is not a segment field (only attributes)',
    ],
    ['no attributes', {}, 'segment.attributes', 'must be an object of attribute names and values'],
    [
      'attributes as an array',
      { attributes: ['city'] },
      'segment.attributes',
      'must be an object of attribute names and values',
    ],
    [
      'a name with a quote',
      { attributes: { 'ci"ty': 'x' } },
      'segment.attributes.ci"ty',
      'an attribute name is 1 to 64 letters, digits or _',
    ],
    [
      'a JSON path as name',
      { attributes: { 'a.b': 'x' } },
      'segment.attributes.a.b',
      'an attribute name is 1 to 64 letters, digits or _',
    ],
    [
      'an empty name',
      { attributes: { '': 'x' } },
      'segment.attributes.',
      'an attribute name is 1 to 64 letters, digits or _',
    ],
    [
      'a number value',
      { attributes: { age: 42 } },
      'segment.attributes.age',
      'must be a string or a non-empty array of strings',
    ],
    [
      'no values',
      { attributes: { plan: [] } },
      'segment.attributes.plan',
      'must be a string or a non-empty array of strings',
    ],
    [
      'a null among values',
      { attributes: { plan: ['gold', null] } },
      'segment.attributes.plan',
      'every value must be a string',
    ],
    [
      'a value too long',
      { attributes: { plan: 'x'.repeat(1025) } },
      'segment.attributes.plan',
      'a value is longer than 1024 characters',
    ],
  ])('refuses %s, naming the field', (_case, input, field, reason) => {
    expect(parseContactListSegment(input)).toEqual({ ok: false, field, reason });
  });

  it('bounds the attributes and the values of one attribute', () => {
    const many = Object.fromEntries(
      Array.from({ length: MAX_SEGMENT_ATTRIBUTES + 1 }, (_, i) => [`a${i}`, 'x']),
    );
    expect(parseContactListSegment({ attributes: many })).toMatchObject({
      ok: false,
      field: 'segment.attributes',
    });
    const tenOk = Object.fromEntries(
      Array.from({ length: MAX_SEGMENT_ATTRIBUTES }, (_, i) => [`a${i}`, 'x']),
    );
    expect(parseContactListSegment({ attributes: tenOk })).toMatchObject({ ok: true });
    const values = Array.from({ length: MAX_SEGMENT_VALUES + 1 }, (_, i) => `v${i}`);
    expect(parseContactListSegment({ attributes: { plan: values } })).toMatchObject({
      ok: false,
      field: 'segment.attributes.plan',
    });
  });

  it('names the field under the prefix it is given', () => {
    expect(parseContactListSegment(7, 'where')).toMatchObject({ ok: false, field: 'where' });
  });
});

describe('segmentMatches', () => {
  const parsed = parseContactListSegment({ attributes: { city: 'Berlin', plan: ['gold', 'silver'] } });
  const segment = parsed.ok ? parsed.segment : { attributes: [] };

  it('holds when every attribute equals one of its values, exactly', () => {
    expect(segmentMatches(segment, { city: 'Berlin', plan: 'silver', name: 'Ada' })).toBe(true);
    expect(segmentMatches(segment, { city: 'berlin', plan: 'silver' })).toBe(false);
    expect(segmentMatches(segment, { city: 'Berlin', plan: 'bronze' })).toBe(false);
    expect(segmentMatches(segment, { city: 'Berlin' })).toBe(false);
    expect(segmentMatches(segment, null)).toBe(false);
    expect(segmentMatches({ attributes: [] }, null)).toBe(true);
  });
});
