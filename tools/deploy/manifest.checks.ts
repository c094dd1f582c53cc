/** Pure checks over rendered Kubernetes objects (plain data parsed from kustomize's YAML output). */

export type K8sObject = Record<string, unknown> & {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
};

type Json = Record<string, unknown>;

const asRecord = (value: unknown): Json =>
  typeof value === 'object' && value !== null ? (value as Json) : {};
const asArray = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);
const asStrings = (value: unknown): Record<string, string> => asRecord(value) as Record<string, string>;

export function objectsOfKind(objects: readonly K8sObject[], kind: string): K8sObject[] {
  return objects.filter((o) => o.kind === kind);
}

export function podSpecOf(workload: K8sObject): Json {
  return asRecord(asRecord(asRecord(asRecord(workload['spec'])['template'])['spec']));
}

export function podLabelsOf(workload: K8sObject): Record<string, string> {
  return asStrings(asRecord(asRecord(asRecord(workload['spec'])['template'])['metadata'])['labels']);
}

export interface ContainerEnv {
  /** Variable name to its value; undefined when it comes from a Secret not in the render (created outside Git). */
  readonly values: Map<string, string | undefined>;
  readonly problems: string[];
}

/**
 * The environment a container gets: env (value, configMapKeyRef, secretKeyRef) and envFrom (whole
 * ConfigMaps or Secrets). A reference to a ConfigMap that is not rendered, or to a missing key, is a
 * problem; a Secret that is not rendered must be one of `externalSecrets` (its values are then unknown).
 */
export function containerEnv(
  container: Json,
  objects: readonly K8sObject[],
  externalSecrets: ReadonlySet<string>,
): ContainerEnv {
  const values = new Map<string, string | undefined>();
  const problems: string[] = [];
  const find = (kind: string, name: string): K8sObject | undefined =>
    objects.find((o) => o.kind === kind && o.metadata.name === name);
  const secretValue = (secret: K8sObject, key: string): string | undefined => {
    const data = asStrings(secret['data']);
    const plain = asStrings(secret['stringData']);
    if (key in plain) return plain[key];
    return key in data ? Buffer.from(data[key] ?? '', 'base64').toString('utf8') : undefined;
  };
  for (const source of asArray(container['envFrom'])) {
    const configMapName = asStrings(source['configMapRef'])['name'];
    const secretName = asStrings(source['secretRef'])['name'];
    if (configMapName !== undefined) {
      const configMap = find('ConfigMap', configMapName);
      if (configMap === undefined) problems.push(`envFrom ConfigMap ${configMapName} is not rendered`);
      else for (const [k, v] of Object.entries(asStrings(configMap['data']))) values.set(k, v);
    }
    if (secretName !== undefined)
      problems.push(`envFrom Secret ${secretName}: name secrets one by one (secretKeyRef)`);
  }
  for (const entry of asArray(container['env'])) {
    const name = String(entry['name']);
    if ('value' in entry) {
      values.set(name, String(entry['value']));
      continue;
    }
    const from = asRecord(entry['valueFrom']);
    const configMapRef = asStrings(from['configMapKeyRef']);
    const secretRef = asStrings(from['secretKeyRef']);
    if (configMapRef['name'] !== undefined) {
      const configMap = find('ConfigMap', configMapRef['name']);
      const data = asStrings(configMap?.['data']);
      const key = configMapRef['key'] ?? '';
      if (configMap === undefined || !(key in data))
        problems.push(`${name}: ConfigMap ${configMapRef['name']} has no key ${key}`);
      else values.set(name, data[key]);
    } else if (secretRef['name'] !== undefined) {
      const secret = find('Secret', secretRef['name']);
      const key = secretRef['key'] ?? '';
      if (secret === undefined) {
        if (!externalSecrets.has(secretRef['name']))
          problems.push(
            `${name}: Secret ${secretRef['name']} is neither rendered nor an expected external secret`,
          );
        values.set(name, undefined);
      } else {
        const value = secretValue(secret, key);
        // An optional key may be absent: the variable is then unset (REDIS_PASSWORD of a Redis without one).
        const optional = asRecord(from['secretKeyRef'])['optional'] === true;
        if (value === undefined && !optional)
          problems.push(`${name}: Secret ${secretRef['name']} has no key ${key}`);
        values.set(name, value);
      }
    } else problems.push(`${name}: neither a value nor a ConfigMap/Secret reference`);
  }
  return { values, problems };
}

function selectorMatches(selector: Json, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries(asStrings(selector['matchLabels']))) if (labels[k] !== v) return false;
  for (const expression of asArray(selector['matchExpressions'])) {
    const key = String(expression['key']);
    const operator = String(expression['operator']);
    const valuesList = (Array.isArray(expression['values']) ? expression['values'] : []) as string[];
    const has = key in labels;
    if (operator === 'In' && !(has && valuesList.includes(labels[key] ?? ''))) return false;
    if (operator === 'NotIn' && has && valuesList.includes(labels[key] ?? '')) return false;
    if (operator === 'Exists' && !has) return false;
    if (operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

/** Whether a label selector object selects these labels (matchLabels and matchExpressions). */
export function selects(selector: unknown, labels: Record<string, string>): boolean {
  return selectorMatches(asRecord(selector), labels);
}

/**
 * Workloads reachable from outside their namespace under the rendered NetworkPolicies: some policy
 * selecting the pod has an ingress rule with no `from`, an ipBlock, or a namespaceSelector that is
 * empty (every namespace). A namespaceSelector naming specific namespaces (monitoring) is not "outside".
 * Pods no ingress policy selects are reachable from anywhere, so they count as public too.
 */
export function publicWorkloads(objects: readonly K8sObject[], workloads: readonly K8sObject[]): string[] {
  const policies = objectsOfKind(objects, 'NetworkPolicy').filter((p) => {
    const types = asRecord(p['spec'])['policyTypes'];
    return !Array.isArray(types) || types.includes('Ingress');
  });
  const reachable: string[] = [];
  for (const workload of workloads) {
    const labels = podLabelsOf(workload);
    const applying = policies.filter((p) => selects(asRecord(p['spec'])['podSelector'], labels));
    const open =
      applying.length === 0 ||
      applying.some((p) =>
        asArray(asRecord(p['spec'])['ingress']).some((rule) => {
          const from = asArray(rule['from']);
          return (
            from.length === 0 ||
            from.some(
              (peer) =>
                'ipBlock' in peer ||
                ('namespaceSelector' in peer &&
                  Object.keys(asRecord(peer['namespaceSelector'])).length === 0),
            )
          );
        }),
      );
    if (open) reachable.push(workload.metadata.name);
  }
  return reachable.sort();
}

/**
 * The ports of a workload's pods that pods of another namespace, labelled `namespaceLabels`, may open under
 * the rendered NetworkPolicies (sorted; `*` for every port). A rule admits them when it has no `from`, or a
 * peer that is an ipBlock or a namespaceSelector selecting those labels (an empty one selects every
 * namespace); a peer with a podSelector alone is the policy's own namespace. A rule without `ports` opens
 * every port. Pods no ingress policy selects are open on every port.
 */
export function portsOpenToNamespace(
  objects: readonly K8sObject[],
  workload: K8sObject,
  namespaceLabels: Record<string, string>,
): string[] {
  const labels = podLabelsOf(workload);
  const applying = objectsOfKind(objects, 'NetworkPolicy').filter((p) => {
    const spec = asRecord(p['spec']);
    const types = spec['policyTypes'];
    return (!Array.isArray(types) || types.includes('Ingress')) && selects(spec['podSelector'], labels);
  });
  if (applying.length === 0) return ['*'];
  const open = new Set<string>();
  for (const rule of applying.flatMap((p) => asArray(asRecord(p['spec'])['ingress']))) {
    const from = asArray(rule['from']);
    const admitted =
      from.length === 0 ||
      from.some(
        (peer) =>
          'ipBlock' in peer ||
          ('namespaceSelector' in peer && selects(peer['namespaceSelector'], namespaceLabels)),
      );
    if (!admitted) continue;
    const ports = asArray(rule['ports']);
    if (ports.length === 0) open.add('*');
    for (const port of ports) open.add(String(port['port']));
  }
  return [...open].sort();
}

/** Kubernetes quantity to bytes (memory) or cores (cpu). */
export function quantity(value: unknown): number {
  const text = String(value);
  const match = /^([0-9.]+)(m|Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(text);
  if (match === null) throw new Error(`not a quantity: ${text}`);
  const units: Record<string, number> = {
    m: 1e-3,
    Ki: 1024,
    Mi: 1024 ** 2,
    Gi: 1024 ** 3,
    Ti: 1024 ** 4,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
  };
  return Number(match[1]) * (match[2] === undefined ? 1 : (units[match[2]] ?? 1));
}
