import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

/** One environment variable a config class reads. */
export interface ConfigVariable {
  readonly name: string;
  /** No default, not optional: start-up fails without it. */
  readonly required: boolean;
  readonly configClass: string;
}

/** What a program (an app, or a job such as migrate) reads from its environment, from its source. */
export interface ProgramConfig {
  readonly program: string;
  readonly configClasses: readonly string[];
  readonly variables: ReadonlyMap<string, ConfigVariable>;
}

function decoratorNames(node: ts.PropertyDeclaration): string[] {
  return (ts.getDecorators(node) ?? []).map((d) => {
    const expression = ts.isCallExpression(d.expression) ? d.expression.expression : d.expression;
    return expression.getText();
  });
}

/** The @Expose()d properties of every class declared in a source text, by class name. */
export function configClassesIn(source: string, fileName = 'config.ts'): Map<string, ConfigVariable[]> {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.ES2022, true);
  const classes = new Map<string, ConfigVariable[]>();
  for (const statement of file.statements) {
    if (!ts.isClassDeclaration(statement) || statement.name === undefined) continue;
    const className = statement.name.text;
    const variables: ConfigVariable[] = [];
    for (const member of statement.members) {
      if (!ts.isPropertyDeclaration(member) || !ts.isIdentifier(member.name)) continue;
      const decorators = decoratorNames(member);
      if (!decorators.includes('Expose')) continue;
      const required =
        member.initializer === undefined &&
        member.questionToken === undefined &&
        !decorators.includes('IsOptional');
      variables.push({ name: member.name.text, required, configClass: className });
    }
    classes.set(className, variables);
  }
  return classes;
}

/** The options object literal of `PlatformModule.forService({...})` in a root module's source. */
export function forServiceOptions(source: string): {
  service: string;
  kafka: boolean;
  mysql: boolean;
  redis: boolean;
  /** An authenticated API (AuthConfig); optional, false when absent. */
  api: boolean;
  configs: string[];
} {
  const file = ts.createSourceFile('app.module.ts', source, ts.ScriptTarget.ES2022, true);
  let options: ts.ObjectLiteralExpression | undefined;
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      node.expression.getText() === 'PlatformModule.forService' &&
      node.arguments[0] !== undefined &&
      ts.isObjectLiteralExpression(node.arguments[0])
    )
      options = node.arguments[0];
    ts.forEachChild(node, visit);
  };
  visit(file);
  if (options === undefined) throw new Error('no PlatformModule.forService({...}) call');
  const property = (name: string): ts.Expression | undefined => {
    for (const p of options?.properties ?? [])
      if (ts.isPropertyAssignment(p) && p.name.getText() === name) return p.initializer;
    return undefined;
  };
  const flag = (name: string, optional = false): boolean => {
    const value = property(name);
    if (value === undefined && optional) return false;
    if (
      value === undefined ||
      (value.kind !== ts.SyntaxKind.TrueKeyword && value.kind !== ts.SyntaxKind.FalseKeyword)
    )
      throw new Error(`forService option ${name} must be a literal true or false`);
    return value.kind === ts.SyntaxKind.TrueKeyword;
  };
  const service = property('service');
  const configs = property('configs');
  return {
    service: service !== undefined && ts.isStringLiteral(service) ? service.text : '',
    kafka: flag('kafka'),
    mysql: flag('mysql'),
    redis: flag('redis'),
    api: flag('api', true),
    configs:
      configs !== undefined && ts.isArrayLiteralExpression(configs)
        ? configs.elements.map((e) => e.getText())
        : [],
  };
}

function tsFilesUnder(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...tsFilesUnder(path));
    else if (entry.name.endsWith('.ts') && !/\.(spec|int-spec|e2e-spec)\.ts$/.test(entry.name))
      files.push(path);
  }
  return files;
}

/** Finds each named config class: first in the given files, then anywhere in libs/platform/src. */
function resolveClasses(
  root: string,
  names: readonly string[],
  hintFiles: readonly string[],
): ConfigVariable[] {
  const found = new Map<string, ConfigVariable[]>();
  for (const file of [...hintFiles, ...tsFilesUnder(join(root, 'libs', 'platform', 'src'))]) {
    const source = readFileSync(file, 'utf8');
    if (!names.some((n) => source.includes(`class ${n}`))) continue;
    for (const [name, vars] of configClassesIn(source, file)) if (!found.has(name)) found.set(name, vars);
  }
  const missing = names.filter((n) => !found.has(n));
  if (missing.length > 0) throw new Error(`config class(es) not found: ${missing.join(', ')}`);
  return names.flatMap((n) => found.get(n) ?? []);
}

function programConfig(
  program: string,
  classes: readonly string[],
  variables: ConfigVariable[],
): ProgramConfig {
  return { program, configClasses: classes, variables: new Map(variables.map((v) => [v.name, v])) };
}

/** An app's variables: the platform classes forService adds (Http, Log, Runtime, and Kafka/Mysql/Redis/Auth by flag) and its own. */
export function readAppConfig(root: string, app: string): ProgramConfig {
  const modulePath = join(root, 'apps', app, 'src', 'app.module.ts');
  const source = readFileSync(modulePath, 'utf8');
  const options = forServiceOptions(source);
  // Relative imports of the root module point at the app's own config files.
  const hints = [...source.matchAll(/from '(\.[^']+)'/g)].map(
    (m) => `${resolve(dirname(modulePath), m[1] ?? '')}.ts`,
  );
  const classes = [
    'HttpConfig',
    'LogConfig',
    'RuntimeConfig',
    ...(options.kafka ? ['KafkaConfig'] : []),
    ...(options.mysql ? ['MysqlConfig'] : []),
    ...(options.redis ? ['RedisConfig'] : []),
    ...(options.api ? ['AuthConfig'] : []),
    ...options.configs,
  ];
  return programConfig(app, classes, resolveClasses(root, classes, hints));
}

/**
 * A command's variables (a job such as migrate): the classes its source file, relative to the root,
 * passes to loadConfig.
 */
export function readCommandConfig(root: string, command: string, sourceFile: string): ProgramConfig {
  const source = readFileSync(join(root, sourceFile), 'utf8');
  const classes = [
    ...new Set([...source.matchAll(/loadConfigs?\(\s*(\w+Config)\b/g)].map((m) => m[1] ?? '')),
  ];
  if (classes.length === 0) throw new Error(`${sourceFile} loads no config class`);
  return programConfig(command, classes, resolveClasses(root, classes, []));
}

/** Variables Node reads itself, not the program: a container may set them whatever its config classes. */
export const NODE_RUNTIME_VARIABLES: ReadonlySet<string> = new Set(['NODE_OPTIONS']);

/** Problems with one container's environment: required variables missing, variables the program never reads. */
export function envProblems(
  config: ProgramConfig,
  env: ReadonlyMap<string, string | undefined>,
  strict: boolean,
): string[] {
  const problems: string[] = [];
  for (const variable of config.variables.values())
    if (variable.required && !env.has(variable.name))
      problems.push(`${config.program}: required ${variable.name} (${variable.configClass}) is not set`);
  if (strict)
    for (const name of env.keys())
      if (!config.variables.has(name) && !NODE_RUNTIME_VARIABLES.has(name))
        problems.push(`${config.program}: ${name} is set but ${config.program} does not read it`);
  return problems;
}
