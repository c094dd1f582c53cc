import { DeadLetterV1, MessageHandlingErrorCode, validateMessage, DecodeErrorCode } from '@ums/contracts';
import {
  buildDeadLetter,
  buildReducedDeadLetter,
  decodeHeaders,
  type FailedRecord,
  REDUCED_VALUE_BYTES,
  utf8Prefix,
} from './dead-letter.builder';

const now = new Date('2026-11-26T10:00:00.000Z');
const cause = {
  consumerGroup: 'g',
  errorCode: DecodeErrorCode.InvalidJson,
  reason: 'Unexpected token',
  attempts: 0,
};

const record = (overrides: Partial<FailedRecord>): FailedRecord => ({
  topic: 'ums.send.batches.v1',
  partition: 4,
  offset: '1234',
  key: Buffer.from('k'),
  value: Buffer.from('{"a":1}'),
  headers: {},
  ...overrides,
});

const schemaValid = (letter: DeadLetterV1): boolean => validateMessage(DeadLetterV1, letter).ok;

describe('buildDeadLetter', () => {
  it('keeps text values as text and other bytes as base64', () => {
    const text = buildDeadLetter(
      record({}),
      { consumerGroup: 'g', errorCode: DecodeErrorCode.InvalidJson, reason: 'x', attempts: 0 },
      now,
    );
    expect(text).toMatchObject({ value: '{"a":1}', valueEncoding: 'utf8', sourceOffset: '1234' });
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x41]);
    const binary = buildDeadLetter(
      record({ value: bytes }),
      { consumerGroup: 'g', errorCode: DecodeErrorCode.InvalidJson, reason: 'x', attempts: 0 },
      now,
    );
    expect(binary.valueEncoding).toBe('base64');
    expect(Buffer.from(binary.value ?? '', 'base64')).toEqual(bytes);
    expect(schemaValid(text) && schemaValid(binary)).toBe(true);
  });

  it('bounds headers and key to what the dead-letter schema accepts', () => {
    const headers: Record<string, string> = {};
    for (let i = 0; i < 200; i++) headers[`h${i}`] = 'x'.repeat(10_000);
    headers['n'.repeat(100)] = 'long name';
    const letter = buildDeadLetter(
      record({ headers, key: Buffer.alloc(5_000, 0x61) }),
      { consumerGroup: 'g', errorCode: DecodeErrorCode.SchemaViolation, reason: 'x', attempts: 0 },
      now,
    );
    expect(Object.keys(letter.headers)).toHaveLength(64);
    expect(letter.headers['h0']).toHaveLength(4096);
    expect(letter.key).toHaveLength(1024);
    expect(letter.reason).toContain('headers shortened');
    expect(schemaValid(letter)).toBe(true);
  });
});

describe('buildReducedDeadLetter', () => {
  it('keeps coordinates, the reason and the first 64 KiB of a huge text value', () => {
    const value = Buffer.from('"'.repeat(1_000_000));
    const letter = buildReducedDeadLetter(record({ value }), cause, 'MESSAGE_TOO_LARGE', now);
    expect(letter).toMatchObject({
      sourceTopic: 'ums.send.batches.v1',
      sourcePartition: 4,
      sourceOffset: '1234',
      errorCode: MessageHandlingErrorCode.DeadLetterTruncated,
      valueEncoding: 'utf8',
      attempts: 0,
    });
    expect(letter.value).toHaveLength(REDUCED_VALUE_BYTES);
    expect(letter.reason).toContain('INVALID_JSON: Unexpected token');
    expect(letter.reason).toContain('MESSAGE_TOO_LARGE');
    expect(letter.reason).toContain(`value ${REDUCED_VALUE_BYTES} of 1000000 bytes`);
    expect(Buffer.byteLength(JSON.stringify(letter))).toBeLessThan(256 * 1024);
    expect(schemaValid(letter)).toBe(true);
  });

  it('stores bytes that are not UTF-8 as base64 and drops most of huge headers', () => {
    const headers: Record<string, string> = {};
    for (let i = 0; i < 100; i++) headers[`h${i}`] = '\u0000'.repeat(9_000);
    const value = Buffer.alloc(200_000, 0xff);
    const letter = buildReducedDeadLetter(record({ value, headers }), cause, 'INVALID_RECORD', now);
    expect(letter.valueEncoding).toBe('base64');
    expect(Buffer.from(letter.value ?? '', 'base64')).toHaveLength(REDUCED_VALUE_BYTES);
    expect(Object.keys(letter.headers)).toHaveLength(16);
    expect(letter.headers['h0']).toHaveLength(256);
    expect(Buffer.byteLength(JSON.stringify(letter))).toBeLessThan(512 * 1024);
    expect(schemaValid(letter)).toBe(true);
  });

  it('keeps a record without value or key as such', () => {
    const letter = buildReducedDeadLetter(record({ value: null, key: null }), cause, 'x', now);
    expect(letter.value).toBeUndefined();
    expect(letter.key).toBeUndefined();
    expect(schemaValid(letter)).toBe(true);
  });
});

describe('utf8Prefix', () => {
  it('never cuts a character in two', () => {
    const text = Buffer.from('aé€😀'); // 1 + 2 + 3 + 4 bytes
    expect(utf8Prefix(text, 2).toString('utf8')).toBe('a');
    expect(utf8Prefix(text, 3).toString('utf8')).toBe('aé');
    expect(utf8Prefix(text, 5).toString('utf8')).toBe('aé');
    expect(utf8Prefix(text, 9).toString('utf8')).toBe('aé€');
    expect(utf8Prefix(text, 10)).toBe(text);
  });
});

describe('decodeHeaders', () => {
  it('reads buffers, strings and arrays, and never throws on bytes that are not UTF-8', () => {
    const headers = {
      a: Buffer.from('one'),
      b: 'two',
      c: [Buffer.from('three'), Buffer.from('ignored')],
      d: Buffer.from([0xff, 0xfe]),
      e: undefined,
      f: null,
      g: 42,
    };
    const decoded = decodeHeaders(headers);
    expect(decoded).toMatchObject({ a: 'one', b: 'two', c: 'three' });
    expect(decoded['d']).toBe('\ufffd\ufffd');
    expect(Object.keys(decoded).sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(decodeHeaders(undefined)).toEqual({});
  });
});
