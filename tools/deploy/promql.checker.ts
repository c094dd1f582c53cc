import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';

/** Metric names a PromQL expression selects, or the parse errors' positions. */
export function metricsInPromql(expr: string): { metrics: string[]; errors: number[] } {
  const tree = parser.parse(expr);
  const metrics: string[] = [];
  const errors: number[] = [];
  const cursor = tree.cursor();
  do {
    if (cursor.type.isError) errors.push(cursor.from);
    if (cursor.name === 'VectorSelector') {
      const selector = cursor.node;
      const identifier = selector.getChild('Identifier');
      if (identifier !== null) metrics.push(expr.slice(identifier.from, identifier.to));
    }
  } while (cursor.next());
  return { metrics, errors };
}

function sourceFiles(dir: string, pattern: RegExp): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'test' && entry.name !== 'fixtures')
        files.push(...sourceFiles(path, pattern));
    } else if (pattern.test(entry.name) && !/\.(spec|int-spec|e2e-spec)\.ts$/.test(entry.name))
      files.push(path);
  }
  return files;
}

/** Metric names declared in source text: `name: 'ums_...'` with the kind of the enclosing `new Counter|Gauge|Histogram`. */
export function declaredMetrics(source: string): Map<string, 'counter' | 'gauge' | 'histogram' | 'summary'> {
  const found = new Map<string, 'counter' | 'gauge' | 'histogram' | 'summary'>();
  for (const match of source.matchAll(
    /new (Counter|Gauge|Histogram|Summary)\s*(?:<[^>]*>)?\(\s*\{\s*name:\s*'([a-zA-Z_:][a-zA-Z0-9_:]*)'/g,
  )) {
    found.set(
      match[2] ?? '',
      (match[1] ?? '').toLowerCase() as 'counter' | 'gauge' | 'histogram' | 'summary',
    );
  }
  return found;
}

/**
 * Every series name the platform can expose: metrics declared in apps/ and libs/ production code
 * (histograms with their _bucket, _sum and _count series), prom-client's default metrics, and `up`.
 */
export function knownSeries(root: string): Set<string> {
  const series = new Set<string>(['up']);
  for (const dir of ['apps', 'libs'])
    for (const file of sourceFiles(join(root, dir), /\.ts$/))
      for (const [name, kind] of declaredMetrics(readFileSync(file, 'utf8'))) {
        series.add(name);
        if (kind === 'histogram' || kind === 'summary')
          for (const s of ['_bucket', '_sum', '_count']) series.add(`${name}${s}`);
      }
  const defaults = join(root, 'node_modules', 'prom-client', 'lib', 'metrics');
  for (const file of sourceFiles(defaults, /\.js$/))
    for (const match of readFileSync(file, 'utf8').matchAll(/'((?:process|nodejs)_[a-z0-9_]+)'/g))
      series.add(match[1] ?? '');
  return series;
}

/** Problems of one expression: parse errors, or series that nothing exposes. */
export function promqlProblems(where: string, expr: string, known: ReadonlySet<string>): string[] {
  const { metrics, errors } = metricsInPromql(expr);
  const problems = errors.map((at) => `${where}: PromQL syntax error at ${at} in ${expr}`);
  if (metrics.length === 0) problems.push(`${where}: selects no metric: ${expr}`);
  for (const metric of metrics)
    if (!known.has(metric)) problems.push(`${where}: metric ${metric} is not exposed by any service`);
  return problems;
}
