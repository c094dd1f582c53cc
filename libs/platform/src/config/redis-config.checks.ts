import { ValidateBy, type ValidationArguments } from 'class-validator';
import { type PemKind, pemFileProblem } from './pem-file.check';

/** How the platform reaches Redis: one server, a Redis Cluster, or a master found through Sentinel. */
export const REDIS_MODES = ['standalone', 'cluster', 'sentinel'] as const;
export type RedisMode = (typeof REDIS_MODES)[number];

const HOST_PORT = /^[A-Za-z0-9.-]+:\d{1,5}$/;

const settings = (args: ValidationArguments | undefined): Record<string, unknown> =>
  (args?.object ?? {}) as Record<string, unknown>;

/** What is wrong with REDIS_URL given the mode, or undefined. */
function urlProblem(value: unknown, mode: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL (redis://[user:password@]host:port[/db])';
  }
  const db = url.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d{1,2}$/.test(db)) return 'database must be a number (redis://host:port/0)';
  if (mode === 'cluster' && db !== '' && db !== '0') return 'a Redis Cluster has database 0 only';
  return undefined;
}

/** REDIS_URL parses, and names database 0 (or none) in cluster mode. */
export function RedisUrlFits(): PropertyDecorator {
  return ValidateBy({
    name: 'redisUrlFits',
    validator: {
      validate: (value: unknown, args) => urlProblem(value, settings(args)['REDIS_MODE']) === undefined,
      defaultMessage: (args) =>
        `REDIS_URL ${urlProblem(args?.value, settings(args)['REDIS_MODE']) ?? 'is invalid'}`,
    },
  });
}

/** What is wrong with a TLS file setting, or undefined. */
function tlsFileProblem(
  value: unknown,
  args: ValidationArguments | undefined,
  file: RedisTlsFileKind,
): string | undefined {
  const { kind, pair } = file;
  const all = settings(args);
  if (typeof value !== 'string') return 'must be a file path';
  if (!String(all['REDIS_URL'] ?? '').startsWith('rediss://'))
    return 'is set but REDIS_URL is not rediss:// (TLS is chosen by the URL scheme)';
  if (pair !== undefined && (all[pair] === undefined || all[pair] === ''))
    return `needs ${pair} too (client certificate and key go together)`;
  return pemFileProblem(value, kind);
}

/** The PEM block a TLS file setting holds, and the setting it must come with (client certificate and key). */
export interface RedisTlsFileKind {
  readonly kind: PemKind;
  readonly pair?: string;
}

/** A readable PEM file, only with a rediss:// URL. */
export function RedisTlsFile(file: RedisTlsFileKind): PropertyDecorator {
  return ValidateBy({
    name: 'redisTlsFile',
    validator: {
      validate: (value: unknown, args) => tlsFileProblem(value, args, file) === undefined,
      defaultMessage: (args) =>
        `${args?.property ?? 'file'} ${tlsFileProblem(args?.value, args, file) ?? 'is invalid'}`,
    },
  });
}

function nodeListProblem(
  value: unknown,
  args: ValidationArguments | undefined,
  mode: RedisMode,
): string | undefined {
  const property = args?.property ?? 'nodes';
  const list = Array.isArray(value) ? (value as unknown[]) : [];
  if (settings(args)['REDIS_MODE'] !== mode)
    return list.length === 0 ? undefined : `${property} is set but REDIS_MODE is not ${mode}`;
  if (list.length === 0) return `${property} must list at least one host:port in ${mode} mode`;
  if (!list.every((entry) => typeof entry === 'string' && HOST_PORT.test(entry)))
    return `${property} entries must be host:port`;
  return undefined;
}

/** A host:port list required in `mode` and refused in the others. */
export function RedisNodeList(mode: RedisMode): PropertyDecorator {
  return ValidateBy({
    name: 'redisNodeList',
    validator: {
      validate: (value: unknown, args) => nodeListProblem(value, args, mode) === undefined,
      defaultMessage: (args) => nodeListProblem(args?.value, args, mode) ?? 'invalid',
    },
  });
}

function modeSettingProblem(
  value: unknown,
  args: ValidationArguments | undefined,
  mode: RedisMode,
  required: boolean,
): string | undefined {
  const property = args?.property ?? 'setting';
  const set = value !== undefined && value !== null;
  if (settings(args)['REDIS_MODE'] !== mode)
    return set ? `${property} is set but REDIS_MODE is not ${mode}` : undefined;
  if (set && typeof value !== 'string') return `${property} must be a string`;
  return required && !set ? `${property} is required in ${mode} mode` : undefined;
}

/** A setting of one mode only (required there when `required`). */
export function OnlyInRedisMode(mode: RedisMode, required: boolean): PropertyDecorator {
  return ValidateBy({
    name: 'onlyInRedisMode',
    validator: {
      validate: (value: unknown, args) => modeSettingProblem(value, args, mode, required) === undefined,
      defaultMessage: (args) => modeSettingProblem(args?.value, args, mode, required) ?? 'invalid',
    },
  });
}
