/**
 * The only reader of the process environment. Everything else receives validated,
 * typed config classes (see config-loader.ts), so a bad variable stops start-up once
 * with a message naming it, instead of failing later deep in a code path.
 */
export type EnvSource = Readonly<Record<string, string | undefined>>;

export function processEnv(): EnvSource {
  return { ...process.env };
}
