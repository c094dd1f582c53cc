import { plainToInstance } from 'class-transformer';
import { IsISO8601, IsString, ValidateIf, validateSync } from 'class-validator';
import { AllTopics } from '../topics/topics';
import { type MessageClass, validateMessage } from './decode-message';
import { fastAccept, hasFastPath } from './fast-accept.validator';
import { flattenValidationErrors } from './field-issue';
import { validMessages } from './test/valid-messages.fixture';

/** What validateMessage did before the fast path: class-transformer, then class-validator. */
function reference(
  cls: MessageClass<object>,
  plain: object,
): { ok: boolean; value?: object; issues?: unknown } {
  let instance: object;
  try {
    instance = plainToInstance(cls, plain);
  } catch (error: unknown) {
    return {
      ok: false,
      issues: [
        { field: '(root)', reason: `could not be read as ${cls.name}: ${String((error as Error).message)}` },
      ],
    };
  }
  const errors = validateSync(instance, { whitelist: true, forbidUnknownValues: true });
  return errors.length > 0
    ? { ok: false, issues: flattenValidationErrors(errors) }
    : { ok: true, value: instance };
}

/** The classes along an object graph, so the built value is compared by prototype as well as by data. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shapeOf);
  if (value === null || typeof value !== 'object') return value;
  const proto = Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null;
  return [proto?.constructor?.name, Object.entries(value).map(([k, v]) => [k, shapeOf(v)])];
}

const odd: unknown[] = [
  null,
  '',
  'x',
  'x'.repeat(70),
  'x'.repeat(5000),
  '12a',
  '007',
  '-1',
  0,
  -1,
  1.5,
  101,
  true,
  {},
  [],
  ['x'],
  [{}],
  [null],
  { a: 'b' },
  { toString: 'x' },
  { constructor: 'x' },
  { a: 1 },
  '2026-02-30T00:00:00Z',
  '2026-11-24',
  '2026-11-24t10:00:00Z',
  '2026-11-24 10:00:00Z',
  // toISOString's shape, real instants or not:
  '2026-11-24T10:00:00.000Z',
  '2024-02-29T23:59:59.999Z',
  '2026-02-29T00:00:00.000Z',
  '2026-04-31T00:00:00.000Z',
  '2026-13-01T00:00:00.000Z',
  '2026-11-24T24:00:00.000Z',
  '2026-11-24T10:60:00.000Z',
  '0999-01-01T00:00:00.000Z',
  'https://example.com/a.csv',
  'DE',
  'sms',
  'SENT',
  'status',
];

/** Every value reached by changing, removing or adding one thing anywhere in the sample. */
function* variants(sample: unknown): Generator<unknown> {
  if (Array.isArray(sample)) {
    for (let i = 0; i < sample.length; i++) {
      for (const inner of variants(sample[i])) yield sample.map((v, j) => (j === i ? inner : v));
      yield sample.filter((_, j) => j !== i);
    }
    yield [...sample, null];
    return;
  }
  if (sample === null || typeof sample !== 'object') {
    yield* odd;
    return;
  }
  const entries = Object.entries(sample);
  for (const [key, value] of entries) {
    for (const inner of variants(value)) yield { ...sample, [key]: inner };
    yield Object.fromEntries(entries.filter(([k]) => k !== key));
  }
  yield { ...sample, unknownField: 'x' };
  yield { unknownFirst: 1, ...sample };
  yield JSON.parse(`{"__proto__": {"polluted": true}, ${JSON.stringify(sample).slice(1)}`) as unknown;
}

describe('fastAccept', () => {
  const classes = [...new Set(AllTopics.map((t) => t.value))];

  it('has a plan for every topic class, and accepts every valid sample itself', () => {
    for (const cls of classes) {
      expect({ cls: cls.name, planned: hasFastPath(cls) }).toEqual({ cls: cls.name, planned: true });
      const list = validMessages[cls.name];
      expect({ cls: cls.name, samples: (list ?? []).length > 0 }).toEqual({ cls: cls.name, samples: true });
      for (const sample of list ?? []) {
        const plain = structuredClone(sample);
        const fast = fastAccept(cls, plain);
        expect(fast).toBeDefined();
        expect(shapeOf(fast)).toEqual(shapeOf(reference(cls, structuredClone(sample)).value));
        expect(plain).toEqual(sample); // the input is not changed
      }
    }
  });

  it('never accepts what class-validator refuses, and builds the same value when it accepts', () => {
    let compared = 0;
    let acceptedFast = 0;
    let refused = 0;
    for (const cls of classes) {
      for (const sample of validMessages[cls.name] ?? []) {
        for (const variant of variants(sample)) {
          const json = JSON.stringify(variant);
          const expected = reference(cls, JSON.parse(json) as object);
          const fast = fastAccept(cls, JSON.parse(json) as object);
          if (fast !== undefined) {
            acceptedFast++;
            expect({ cls: cls.name, json, ok: expected.ok }).toEqual({ cls: cls.name, json, ok: true });
            expect(shapeOf(fast)).toEqual(shapeOf(expected.value));
          }
          if (!expected.ok) refused++;
          // The public function gives class-validator's verdict and messages either way.
          const result = validateMessage(cls, JSON.parse(json) as object);
          expect(result.ok).toBe(expected.ok);
          if (result.ok) expect(shapeOf(result.value)).toEqual(shapeOf(expected.value));
          else expect(result.issues).toEqual(expected.issues);
          compared++;
        }
      }
    }
    // Measured: 4,232 variants, 3,038 refused, 1,190 of the 1,194 valid ones accepted by the plan (the
    // other 4 hold a null optional field or a nested value its parent's condition skips).
    expect(compared).toBeGreaterThan(4_000);
    expect(refused).toBeGreaterThan(2_500);
    expect(acceptedFast).toBeGreaterThanOrEqual(0.95 * (compared - refused));
  });

  it('leaves values class-transformer would change to class-validator', () => {
    const batch = validMessages.MessageBatchV1?.[0] as { items: object[] };
    const withKey = (variables: unknown): object => ({
      ...batch,
      items: [{ messageId: '1', recipient: 'x', variables }],
    });
    const cls = classes.find((c) => c.name === 'MessageBatchV1') as MessageClass<object>;
    expect(fastAccept(cls, withKey({ toString: 'x' }))).toBeUndefined();
    expect(
      fastAccept(
        cls,
        JSON.parse(JSON.stringify(withKey({ a: 'b' })).replace('"a"', '"__proto__"')) as object,
      ),
    ).toBeUndefined();
    expect(fastAccept(cls, withKey({ a: 'b' }))).toBeDefined();
  });

  it("takes toISOString's timestamps without the validator, and nothing IsISO8601 refuses", () => {
    class Stamped {
      @IsISO8601({ strict: true })
      strict!: string;

      @IsISO8601()
      loose!: string;
    }
    const pad = (n: number, width: number): string => String(n).padStart(width, '0');
    const samples: string[] = [];
    for (let i = 0; i < 3000; i++) {
      // Any field in or out of range, in toISOString's shape, and real instants from 1000 to 9999.
      const year = 900 + Math.floor(Math.random() * 9200);
      samples.push(
        `${pad(year, 4)}-${pad(Math.floor(Math.random() * 14), 2)}-${pad(Math.floor(Math.random() * 33), 2)}T` +
          `${pad(Math.floor(Math.random() * 25), 2)}:${pad(Math.floor(Math.random() * 61), 2)}:` +
          `${pad(Math.floor(Math.random() * 61), 2)}.${pad(Math.floor(Math.random() * 1000), 3)}Z`,
        new Date(
          Date.UTC(1000, 0, 1) + Math.random() * (Date.UTC(9999, 11, 31) - Date.UTC(1000, 0, 1)),
        ).toISOString(),
      );
    }
    let accepted = 0;
    for (const value of samples) {
      const plain = { strict: value, loose: value };
      const expected = reference(Stamped, { ...plain });
      const fast = fastAccept(Stamped, { ...plain });
      expect({ value, ok: fast === undefined ? expected.ok : true }).toEqual({ value, ok: expected.ok });
      if (fast !== undefined) accepted++;
    }
    expect(accepted).toBeGreaterThanOrEqual(3000);
  });

  it('leaves a constraint that throws to class-validator, whose path refuses the message without throwing', () => {
    class Throwing {
      @ValidateIf((o: { name?: string }) => {
        if (o.name === 'boom') throw new Error('condition failed');
        return true;
      })
      @IsString()
      name!: string;
    }
    expect(fastAccept(Throwing, { name: 'ok' })).toEqual({ name: 'ok' });
    expect(fastAccept(Throwing, { name: 'boom' })).toBeUndefined();
    expect(validateMessage(Throwing, { name: 'boom' })).toMatchObject({
      ok: false,
      code: 'SCHEMA_VIOLATION',
      issues: [{ field: '(root)', reason: 'could not be read as Throwing: condition failed' }],
    });
  });
});
