import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  registerDecorator,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import {
  classJsonSchema,
  classJsonSchemas,
  JsonSchemaRule,
  registerValidatorSchema,
} from './class-json-schema';

const PREFIX = '#/components/schemas/';

class Item {
  @IsString() @Length(1, 8) code!: string;
}

function IsEven(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isEvenForSpec',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: { validate: (value: unknown) => typeof value === 'number' && value % 2 === 0 },
    });
}

function IsOdd(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isOddForSpec',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: { validate: (value: unknown) => typeof value === 'number' && value % 2 === 1 },
    });
}

registerValidatorSchema('isEvenForSpec', { type: 'integer', multipleOf: 2 });

class Sample {
  // Min and Max after IsInt: the library's merge would leave `number`.
  @Max(10) @Min(1) @IsInt() count!: number;

  @IsOptional()
  @IsIn(['a', 'b'], { each: true })
  @ArrayMaxSize(2)
  @ArrayUnique()
  letters?: string[];

  @IsISO8601({ strict: true })
  @Matches(/Z$/)
  at!: string;

  @ValidateNested({ each: true }) @Type(() => Item) items!: Item[];

  @IsOptional() @IsEven() even?: number;
}

@JsonSchemaRule({ fields: ['note'], nullable: ['note'] })
class WithRule {
  @ValidateIf((_o: object, v: unknown) => v !== null) @IsString() note?: string | null;
}

class WithoutRule {
  @ValidateIf((_o: object, v: unknown) => v !== null) @IsString() note?: string | null;
}

class Unconverted {
  @IsOdd() odd!: number;
}

describe('classJsonSchema', () => {
  const schema = classJsonSchema(Sample, { refPrefix: PREFIX, closed: true });
  const properties = schema['properties'] as Record<string, Record<string, unknown>>;

  it('keeps the limits, enums, integer types and every pattern of the validators', () => {
    expect(properties['count']).toEqual({ type: 'integer', minimum: 1, maximum: 10 });
    expect(properties['letters']).toMatchObject({
      type: 'array',
      maxItems: 2,
      uniqueItems: true,
      items: { type: 'string', enum: ['a', 'b'] },
    });
    expect(properties['at']).toMatchObject({ type: 'string', format: 'date-time' });
    const at = properties['at'] ?? {};
    const patterns = [
      at['pattern'],
      ...((at['allOf'] as { pattern: string }[] | undefined) ?? []).map((s) => s.pattern),
    ];
    expect(patterns).toContain('Z$');
    expect(patterns).toHaveLength(2);
    expect(properties['even']).toEqual({ type: 'integer', multipleOf: 2 });
  });

  it('refers to nested classes, requires what is not optional, and refuses unknown fields when closed', () => {
    expect(properties['items']).toEqual({ type: 'array', items: { $ref: `${PREFIX}Item` } });
    // `items` has @ValidateNested alone, which class-validator skips for a missing value.
    expect(schema['required']).toEqual(['count', 'at']);
    expect(schema['additionalProperties']).toBe(false);
    expect(classJsonSchema(Sample, { refPrefix: PREFIX })['additionalProperties']).toBeUndefined();
    expect([...classJsonSchemas([Sample], { refPrefix: PREFIX }).keys()]).toEqual(['Sample', 'Item']);
  });

  it('applies a class rule: its conditional fields, null accepted where it says', () => {
    expect(classJsonSchema(WithRule, { refPrefix: PREFIX })['properties']).toEqual({
      note: { type: ['string', 'null'] },
    });
  });

  it('reports conditional fields without a rule and validators without a conversion', () => {
    expect(() => classJsonSchema(WithoutRule, { refPrefix: PREFIX })).toThrow(
      'WithoutRule: @ValidateIf on [note] but its schema rule lists []',
    );
    const problems: string[] = [];
    classJsonSchema(Unconverted, { refPrefix: PREFIX, onProblem: (p) => problems.push(p) });
    expect(problems).toEqual([
      expect.stringContaining('Unconverted.odd: no checked JSON Schema rule for isOddForSpec'),
    ]);
  });
});
