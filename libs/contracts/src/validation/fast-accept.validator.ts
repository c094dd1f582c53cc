import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, IS_ISO8601, type ValidationArguments, ValidationTypes } from 'class-validator';
import type { MessageClass } from './decode-message';
import { isCanonicalTimestamp } from './canonical-timestamp';

/** A check class-validator would run on one property: the same constraint instance, the same arguments. */
interface PropertyCheck {
  readonly each: boolean;
  readonly constraints: unknown[];
  readonly validate: (value: unknown, args: ValidationArguments) => unknown;
}

interface PropertyPlan {
  readonly name: string;
  /** ValidateIf / IsOptional: the property is checked only if every one returns true. */
  readonly conditions: readonly ((object: object, value: unknown) => boolean)[];
  readonly checks: readonly PropertyCheck[];
  /** ValidateNested with class-transformer's @Type: the nested class (its plan is looked up lazily). */
  readonly nested?: MessageClass<object>;
}

interface ClassPlan {
  readonly cls: MessageClass<object>;
  readonly properties: readonly PropertyPlan[];
  readonly byName: ReadonlyMap<string, PropertyPlan>;
}

const plans = new WeakMap<MessageClass<object>, ClassPlan | null>();

/**
 * The fast path of `validateMessage`: plainToInstance + validateSync({ whitelist, forbidUnknownValues })
 * cost 14 µs for a status event and 450 µs for a 100-item batch, mostly class-transformer's copy,
 * class-validator's metadata lookups and its error objects, on every consumed message. This plan is
 * built once per class from the same metadata and runs the same constraint instances with the same
 * arguments, on an object built the way class-transformer builds it and stripped as the whitelist
 * strips it. It only ever accepts: it returns undefined for anything it rejects or is not sure of
 * (a class or value shape it does not model), and the caller then asks class-validator, which stays
 * the authority and the only source of error messages. `fast-accept.validator.spec.ts` checks on
 * every topic's class that whatever this accepts, class-validator accepts with an equal value.
 *
 * The plan needs class-validator's metadata storage (`getMetadataStorage`), which the package exports
 * but does not document: its supported API only validates, and validating each message through it is
 * the cost this path exists to avoid. package.json holds class-validator to 0.14.x for that reason,
 * and the spec above fails first if a release changes what the storage holds.
 */
export function fastAccept<V extends object>(cls: MessageClass<V>, plain: object): V | undefined {
  const plan = planOf(cls as MessageClass<object>);
  if (plan === null) return undefined;
  try {
    return build(plan, plain) as V | undefined;
  } catch {
    // A constraint that throws is not for the fast path to judge: class-validator's path runs it
    // again and turns what it throws into a refusal with a reason.
    return undefined;
  }
}

/** Whether a class has a fast path (for tests: every topic's class should). */
export function hasFastPath(cls: MessageClass<object>): boolean {
  return planOf(cls) !== null;
}

function planOf(cls: MessageClass<object>): ClassPlan | null {
  const known = plans.get(cls);
  if (known !== undefined) return known;
  // Set first so a class nesting itself does not recurse forever.
  plans.set(cls, null);
  let plan: ClassPlan | null = null;
  try {
    plan = compile(cls);
  } catch {
    // A class this cannot read (class-transformer threw on a probe) simply has no fast path.
    plan = null;
  }
  plans.set(cls, plan);
  return plan;
}

function compile(cls: MessageClass<object>): ClassPlan | null {
  // Accessors or methods change what class-transformer copies; the contracts have none.
  if (Object.getOwnPropertyNames(cls.prototype).some((name) => name !== 'constructor')) return null;
  const storage = getMetadataStorage();
  // The arguments ValidationExecutor passes with our options (no groups, not `always`, not strict).
  const metadatas = storage.getTargetValidationMetadatas(cls, '', false, false, []);
  if (metadatas.length === 0) return null;
  const grouped = storage.groupByPropertyName(metadatas);
  const properties: PropertyPlan[] = [];
  for (const [name, list] of Object.entries(grouped)) {
    if (name in Object.prototype) return null;
    const conditions: ((object: object, value: unknown) => boolean)[] = [];
    const checks: PropertyCheck[] = [];
    let nestedValidation = false;
    for (const metadata of list) {
      if ((metadata.groups?.length ?? 0) > 0 || metadata.always !== undefined) return null;
      switch (metadata.type) {
        case ValidationTypes.WHITELIST:
          break;
        case ValidationTypes.CONDITIONAL_VALIDATION:
          conditions.push(metadata.constraints[0] as (object: object, value: unknown) => boolean);
          break;
        case ValidationTypes.NESTED_VALIDATION:
          // `each` or not, class-validator validates every element of an array value.
          nestedValidation = true;
          break;
        case ValidationTypes.CUSTOM_VALIDATION:
        case ValidationTypes.IS_DEFINED:
          for (const constraint of storage.getTargetValidatorConstraints(metadata.constraintCls)) {
            if (constraint.async) return null;
            const instance = constraint.instance as { validate: PropertyCheck['validate'] };
            const validate = instance.validate.bind(instance);
            checks.push({
              each: metadata.each,
              constraints: metadata.constraints,
              validate: metadata.name === IS_ISO8601 ? orCanonicalTimestamp(validate) : validate,
            });
          }
          break;
        default:
          // Promise validation or a type added by a later class-validator: not modelled.
          return null;
      }
    }
    const typed = transformedType(cls, name);
    if (typed === null) return null;
    if (nestedValidation && typed === undefined) return null; // forbidUnknownValues would refuse it
    if (typed !== undefined && !nestedValidation) return null; // @Type alone: converted, not validated
    properties.push({ name, conditions, checks, ...(typed === undefined ? {} : { nested: typed }) });
  }
  return { cls, properties, byName: new Map(properties.map((p) => [p.name, p])) };
}

/**
 * What class-transformer makes of an object under this property, asked of class-transformer itself:
 * undefined when it copies the value as it is, the class when @Type converts it, null when it does
 * anything else (@Transform, @Exclude, @Expose, a discriminator), which the plan does not model.
 */
function transformedType(cls: MessageClass<object>, name: string): MessageClass<object> | undefined | null {
  const asString = (plainToInstance(cls, { [name]: 'x' }) as Record<string, unknown>)[name];
  const asObject = (plainToInstance(cls, { [name]: { a: 'x' } }) as Record<string, unknown>)[name];
  if (asString !== 'x' || asObject === null || typeof asObject !== 'object') return null;
  const ctor = (asObject as object).constructor as MessageClass<object>;
  if (JSON.stringify(asObject) !== '{"a":"x"}') return null;
  return ctor === Object ? undefined : ctor;
}

/** The instance class-transformer and the whitelist would make, if every check passes; else undefined. */
function build(plan: ClassPlan, plain: object): object | undefined {
  const out = Object.create(plan.cls.prototype as object) as Record<string, unknown>;
  // Keys in the plain object's order, unknown ones left out (the whitelist deletes them).
  for (const key of Object.keys(plain)) {
    const property = plan.byName.get(key);
    if (property === undefined) continue;
    const value = (plain as Record<string, unknown>)[key];
    if (property.nested === undefined) {
      if (!copiedAsIs(value)) return undefined;
      out[key] = value;
    } else if (value === null) {
      out[key] = value;
    } else {
      // Built and validated (and whitelisted) now; below, only if the parent's conditions apply.
      const nested = planOf(property.nested);
      if (nested === null || typeof value !== 'object') return undefined;
      if (Array.isArray(value)) {
        const items: unknown[] = [];
        for (const item of value) {
          if (item === null || typeof item !== 'object' || Array.isArray(item)) return undefined;
          const built = build(nested, item as object);
          if (built === undefined) return undefined;
          items.push(built);
        }
        out[key] = items;
      } else {
        const built = build(nested, value);
        if (built === undefined) return undefined;
        out[key] = built;
      }
    }
  }
  for (const property of plan.properties) {
    const value = out[property.name];
    let applies = true;
    for (const condition of property.conditions) applies = condition(out, value) && applies;
    if (!applies) {
      // class-validator neither validates nor whitelists a nested value it skips: left to it.
      if (property.nested !== undefined && value !== undefined) return undefined;
      continue;
    }
    for (const check of property.checks) {
      const checkArgs: ValidationArguments = {
        targetName: plan.cls.name,
        property: property.name,
        object: out,
        value,
        constraints: check.constraints,
      };
      if (check.each && Array.isArray(value)) {
        for (const item of value) if (check.validate(item, checkArgs) !== true) return undefined;
      } else if (check.validate(value, checkArgs) !== true) {
        return undefined;
      }
    }
    // Nested instances were validated while they were built (a primitive there was turned away);
    // what is left is what class-validator refuses outright: null under ValidateNested.
    if (property.nested !== undefined && value === null) return undefined;
  }
  return out;
}

/**
 * Whether class-transformer copies a JSON value unchanged: it skips keys that name a member of
 * Object.prototype (and `__proto__` would set a prototype), so a value holding one is left to it.
 */
function copiedAsIs(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) return value.every(copiedAsIs);
  for (const key of Object.keys(value)) {
    if (key in Object.prototype || !copiedAsIs((value as Record<string, unknown>)[key])) return false;
  }
  return true;
}

/**
 * IsISO8601 with a shortcut for the timestamps every producer of ours writes: a canonical one
 * (`isCanonicalTimestamp`) is in the strictest form the validator knows, so it passes, strict or not.
 * Anything else goes to the validator's regular expressions and date check: 0.3-0.8 s of a service's
 * profiled CPU per 100,000 pipeline messages.
 */
function orCanonicalTimestamp(validate: PropertyCheck['validate']): PropertyCheck['validate'] {
  return (value, args) => {
    if (typeof value === 'string' && isCanonicalTimestamp(value)) return true;
    return validate(value, args);
  };
}
