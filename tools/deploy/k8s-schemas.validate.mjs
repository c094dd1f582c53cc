// Validates Kubernetes objects against the OpenAPI-derived JSON schemas compiled into the
// `kubernetes-models` package (core API) and `@kubernetes-models/prometheus-operator` (CRDs).
// Those packages are ES modules, so the Jest suite runs this file as a child process:
// stdin is a JSON array of objects, stdout a JSON array of { index, error } for each one that fails.
// An object whose apiVersion/kind has no schema in either package fails too.
import { readFileSync } from 'node:fs';

const input = JSON.parse(readFileSync(0, 'utf8'));

async function modelFor(apiVersion, kind) {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const candidates =
    group === 'monitoring.coreos.com'
      ? [`@kubernetes-models/prometheus-operator/${group}/${version}`]
      : [group === '' ? `kubernetes-models/${version}` : `kubernetes-models/${group}/${version}`];
  for (const specifier of candidates) {
    try {
      const module = await import(specifier);
      if (typeof module[kind] === 'function') return module[kind];
    } catch {
      // no such group/version in this package
    }
  }
  return undefined;
}

const failures = [];
for (const [index, object] of input.entries()) {
  const Model = await modelFor(String(object.apiVersion), String(object.kind));
  if (Model === undefined) {
    failures.push({ index, error: `no schema for ${object.apiVersion} ${object.kind}` });
    continue;
  }
  try {
    new Model(object).validate();
  } catch (error) {
    failures.push({ index, error: error instanceof Error ? error.message : String(error) });
  }
}
process.stdout.write(JSON.stringify(failures));
