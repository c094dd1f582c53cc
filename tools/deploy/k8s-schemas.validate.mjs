// Validates Kubernetes objects against the OpenAPI-derived JSON schemas compiled into the
// `kubernetes-models` package (core API) and `@kubernetes-models/prometheus-operator` (CRDs).
// Those packages are ES modules, so the Jest suite runs this file as a child process:
// stdin is a JSON array of objects, stdout a JSON array of { index, error } for each one that fails.
// Strimzi's KafkaTopic and KafkaUser (kafka.strimzi.io/v1beta2), for which no models package exists,
// are checked against strimzi-schemas.json: the fields of Strimzi's CRDs that UMS uses, unknown ones refused.
// An object whose apiVersion/kind has no schema fails too.
import { readFileSync } from 'node:fs';
import Ajv from 'ajv';

const input = JSON.parse(readFileSync(0, 'utf8'));

const strimziSchemas = JSON.parse(readFileSync(new URL('./strimzi-schemas.json', import.meta.url), 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: false });
const strimziValidators = Object.fromEntries(
  Object.entries(strimziSchemas).map(([key, schema]) => [key, ajv.compile(schema)]),
);

/** A model-like class for a Strimzi kind, or undefined. */
function strimziModel(apiVersion, kind) {
  const validate = strimziValidators[`${apiVersion} ${kind}`];
  if (validate === undefined) return undefined;
  return class {
    constructor(object) {
      this.object = object;
    }
    validate() {
      if (!validate(this.object)) throw new Error(ajv.errorsText(validate.errors));
    }
  };
}

async function modelFor(apiVersion, kind) {
  const strimzi = strimziModel(apiVersion, kind);
  if (strimzi !== undefined) return strimzi;
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
