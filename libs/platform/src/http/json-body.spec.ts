import { InvalidInputError } from '../errors/coded-error';
import {
  checkJsonBodyShape,
  checkJsonRequest,
  MAX_JSON_DEPTH,
  mediaTypeOf,
  parseJsonBody,
  UnsupportedMediaTypeError,
} from './json-body';

function refusal(run: () => unknown): { code: string; fields: readonly { field: string; reason: string }[] } {
  try {
    run();
  } catch (error: unknown) {
    if (error instanceof InvalidInputError) return { code: error.code, fields: error.fields };
    throw error;
  }
  throw new Error('not refused');
}

describe('parseJsonBody', () => {
  it('parses UTF-8 JSON, ignoring a byte-order mark', () => {
    expect(parseJsonBody(Buffer.from('{"name":"Zoë","n":[1,{"a":null}]}'))).toEqual({
      name: 'Zoë',
      n: [1, { a: null }],
    });
    expect(parseJsonBody(Buffer.from('\ufeff{"a":1}'))).toEqual({ a: 1 });
  });

  it('keeps ordinary keys that only look like prototype words', () => {
    expect(parseJsonBody(Buffer.from('{"constructor":"x","prototype":1,"proto":2}'))).toEqual({
      constructor: 'x',
      prototype: 1,
      proto: 2,
    });
  });

  it.each([
    ['an empty body', '', 'body', 'is empty: send a JSON object'],
    ['only spaces', '  \n', 'body', 'is empty: send a JSON object'],
    [
      'a syntax error, by position only',
      '{"secret": "s3cr3t",}',
      'body',
      'is not valid JSON (at position 20)',
    ],
    [
      'a __proto__ key',
      '{"a":{"__proto__":{"admin":true}}}',
      'a.__proto__',
      'a "__proto__" or "constructor.prototype" key is not accepted',
    ],
    [
      'a __proto__ key written with escapes',
      '{"\\u005f_proto__":{}}',
      '__proto__',
      'a "__proto__" or "constructor.prototype" key is not accepted',
    ],
    [
      'a __proto__ key in an array',
      '{"r":[{},{"__proto__":1}]}',
      'r[1].__proto__',
      'a "__proto__" or "constructor.prototype" key is not accepted',
    ],
    [
      'constructor.prototype',
      '{"constructor":{"prototype":{"x":1}}}',
      'constructor.prototype',
      'a "__proto__" or "constructor.prototype" key is not accepted',
    ],
  ])('refuses %s (400 BODY_INVALID naming where)', (_label, text, field, reason) => {
    expect(refusal(() => parseJsonBody(Buffer.from(text)))).toEqual({
      code: 'BODY_INVALID',
      fields: [{ field, reason }],
    });
  });

  it('refuses bytes that are not UTF-8', () => {
    expect(refusal(() => parseJsonBody(Buffer.from('{"name":"Jos\xe9"}', 'latin1')))).toEqual({
      code: 'BODY_INVALID',
      fields: [{ field: 'body', reason: 'is not valid UTF-8' }],
    });
  });

  it('never puts the body text into the refusal', () => {
    const refused = refusal(() => parseJsonBody(Buffer.from('{"secret":"hunter2" oops}')));
    expect(JSON.stringify(refused)).not.toContain('hunter2');
  });
});

describe('checkJsonBodyShape', () => {
  const nested = (depth: number): unknown => {
    let value: unknown = 'leaf';
    for (let i = 1; i < depth; i++) value = [value];
    return { a: value };
  };

  it('accepts an object up to the depth limit', () => {
    expect(() => checkJsonBodyShape(nested(MAX_JSON_DEPTH - 1))).not.toThrow();
    expect(() => checkJsonBodyShape({ name: 'Zoë 😀', list: [1, true, null, { x: 'y' }] })).not.toThrow();
  });

  it.each([
    ['an array', [1, 2], 'body', 'must be a JSON object'],
    ['a string', 'text', 'body', 'must be a JSON object'],
    ['null', null, 'body', 'must be a JSON object'],
    ['a number', 5, 'body', 'must be a JSON object'],
    [
      'a lone surrogate in a value',
      { r: [{ name: 'a\ud800' }] },
      'r[0].name',
      'is not well-formed Unicode (a lone surrogate)',
    ],
    [
      'a lone surrogate in a key',
      { v: { ['k\udc00']: 'x' } },
      'v',
      'has a key that is not well-formed Unicode',
    ],
  ])('refuses %s (400 VALIDATION_FAILED)', (_label, body, field, reason) => {
    expect(refusal(() => checkJsonBodyShape(body))).toEqual({
      code: 'VALIDATION_FAILED',
      fields: [{ field, reason }],
    });
  });

  it('refuses nesting past the limit, without recursing (100,000 levels)', () => {
    expect(refusal(() => checkJsonBodyShape(nested(MAX_JSON_DEPTH + 1))).fields[0]?.reason).toBe(
      `nests deeper than ${MAX_JSON_DEPTH} levels`,
    );
    expect(refusal(() => checkJsonBodyShape(nested(100_000))).code).toBe('VALIDATION_FAILED');
  });
});

describe('checkJsonRequest', () => {
  const json = { 'content-type': 'application/json', 'content-length': '2' };

  it('lets JSON through, and a request without any body (the pipe names the missing fields)', () => {
    expect(() => checkJsonRequest(json, {})).not.toThrow();
    expect(() => checkJsonRequest({ 'content-type': 'Application/JSON; charset=UTF-8' }, {})).not.toThrow();
    expect(() => checkJsonRequest({}, undefined)).not.toThrow();
    expect(() => checkJsonRequest({ 'content-length': '0' }, undefined)).not.toThrow();
  });

  it.each([
    [
      { 'content-type': 'text/plain', 'content-length': '9' },
      'Content-Type text/plain is not accepted here: send application/json',
    ],
    [
      { 'content-type': 'application/x-www-form-urlencoded' },
      'Content-Type application/x-www-form-urlencoded is not accepted here: send application/json',
    ],
    [
      { 'content-type': 'multipart/form-data; boundary=x' },
      'Content-Type multipart/form-data is not accepted here: send application/json',
    ],
    [
      { 'content-type': 'application/json; charset=iso-8859-1' },
      'Content-Type application/json; charset=iso-8859-1 is not accepted here: send application/json in UTF-8',
    ],
    [{ 'content-length': '12' }, 'A body without a Content-Type is not accepted here: send application/json'],
    [
      { 'transfer-encoding': 'chunked' },
      'A body without a Content-Type is not accepted here: send application/json',
    ],
  ])('answers 415 UNSUPPORTED_MEDIA_TYPE to %j', (headers, message) => {
    let thrown: unknown;
    try {
      checkJsonRequest(headers, 'body');
    } catch (error: unknown) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UnsupportedMediaTypeError);
    expect(thrown).toMatchObject({ statusCode: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message });
  });

  it('checks the shape of a JSON body', () => {
    expect(refusal(() => checkJsonRequest(json, [1])).fields).toEqual([
      { field: 'body', reason: 'must be a JSON object' },
    ]);
  });
});

it('reads a media type and its charset from a Content-Type header', () => {
  expect(mediaTypeOf('Application/JSON ; Charset="utf-8"')).toEqual({
    type: 'application/json',
    charset: '"utf-8"',
  });
  expect(mediaTypeOf('text/plain')).toEqual({ type: 'text/plain', charset: undefined });
  expect(mediaTypeOf(' ')).toBeUndefined();
  expect(mediaTypeOf(undefined)).toBeUndefined();
});
