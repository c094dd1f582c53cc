import { createRequire } from 'node:module';

// patches/kafkajs+2.2.4.patch rewrites how kafkajs encodes a record (headers written into the record's own
// buffer) and a varint (into the buffer, not through a Buffer of its own). These round trips through
// kafkajs's own, unpatched decoders show the bytes still mean what they meant.
interface Encoded {
  readonly buffer: Buffer;
}
interface RecordInput {
  readonly offsetDelta: number;
  readonly timestampDelta: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: Headers;
}
type Headers = Record<string, string | Buffer | (string | Buffer)[]>;
const NO_HEADERS: Headers = {};
interface DecodedRecord {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly offset: string;
  readonly headers: Record<string, Buffer | Buffer[]>;
}

const load = createRequire(require.resolve('kafkajs'));
const Record = load('./src/protocol/recordBatch/record/v0') as (input: RecordInput) => Encoded;
const { RecordBatch } = load('./src/protocol/recordBatch/v0') as {
  RecordBatch: (input: { records: Encoded[]; firstOffset?: unknown }) => Promise<Encoded>;
};
const decodeBatch = load('./src/protocol/recordBatch/v0/decoder') as (
  decoder: unknown,
) => Promise<{ records: DecodedRecord[] }>;
const Decoder = load('./src/protocol/decoder') as new (buffer: Buffer) => unknown;
const Encoder = load('./src/protocol/encoder') as new () => {
  writeVarInt(value: number): { buffer: Buffer };
};
const VarIntDecoder = Decoder as unknown as new (buffer: Buffer) => { readVarInt(): number };

function randomText(length: number, seed: number): string {
  const alphabet = 'abcXYZ019-_:/.é✓😀';
  let text = '';
  for (let i = 0; i < length; i++) text += alphabet[(seed * 31 + i * 7) % alphabet.length];
  return text;
}

describe('kafkajs record encoding, as patched', () => {
  it('round-trips varints at every byte length, negative ones included', () => {
    const values = [
      0,
      1,
      -1,
      63,
      64,
      -64,
      -65,
      8191,
      8192,
      2 ** 20,
      -(2 ** 20),
      2 ** 27,
      2 ** 30,
      2 ** 31 - 1,
    ];
    values.push(-(2 ** 31));
    for (const value of values) {
      const buffer = new Encoder().writeVarInt(value).buffer;
      expect(new VarIntDecoder(buffer).readVarInt()).toBe(value);
    }
  });

  it('round-trips records with keys, values and headers of every size through the batch decoder', async () => {
    const inputs: RecordInput[] = Array.from({ length: 300 }, (_, i) => ({
      offsetDelta: i,
      timestampDelta: i * 1_000,
      key: i % 17 === 0 ? null : Buffer.from(randomText(i % 40, i)),
      value: i % 23 === 0 ? null : Buffer.from(randomText(i === 299 ? 70_000 : (i * 97) % 3_000, i)),
      headers:
        i % 5 === 0
          ? NO_HEADERS
          : {
              ce_specversion: '1.0',
              ce_id: `msg-${i}-SENT-DELIVERED`,
              ce_type: 'io.ums.message.status.v1',
              'content-type': Buffer.from('application/json'),
              long: randomText((i * 13) % 400, i),
              repeated: [randomText(3, i), Buffer.from(randomText(200, i + 1))],
            },
    }));
    const batch = await RecordBatch({ records: inputs.map((input) => Record(input)) });
    const { records } = await decodeBatch(new Decoder(batch.buffer));
    expect(records).toHaveLength(inputs.length);
    records.forEach((record, i) => {
      const input = inputs[i] as RecordInput;
      expect(record.offset).toBe(String(i));
      expect(record.key).toEqual(input.key);
      expect(record.value).toEqual(input.value);
      const expected = Object.fromEntries(
        Object.entries(input.headers).map(([name, value]) => [
          name,
          Array.isArray(value) ? value.map((v) => Buffer.from(v)) : Buffer.from(value),
        ]),
      );
      expect(record.headers).toEqual(expected);
    });
  });
});
