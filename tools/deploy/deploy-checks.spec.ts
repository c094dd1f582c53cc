import { configClassesIn, envProblems, forServiceOptions, type ProgramConfig } from './app-config.reader';
import {
  containerEnv,
  type K8sObject,
  portsOpenToNamespace,
  publicWorkloads,
  quantity,
} from './manifest.checks';
import { metricsInPromql, promqlProblems } from './promql.checker';

// The checkers behind tools/deploy/manifests.int-spec.ts, shown to fail on bad input.

const deployment = (name: string, labels: Record<string, string>): K8sObject => ({
  kind: 'Deployment',
  metadata: { name },
  spec: { template: { metadata: { labels }, spec: {} } },
});

describe('config class reading', () => {
  const source = `
    export class ExampleConfig {
      @Expose() @IsString() REQUIRED_ONE!: string;
      @Expose() @IsOptional() @IsString() OPTIONAL_ONE?: string;
      @Expose() @IsOptional() @IsString() OPTIONAL_BANG!: string;
      @Expose() @ToInt() WITH_DEFAULT = 5;
      notAVariable = 1;
    }`;

  it('finds exposed variables and which are required', () => {
    const vars = configClassesIn(source).get('ExampleConfig') ?? [];
    expect(vars.map((v) => [v.name, v.required])).toEqual([
      ['REQUIRED_ONE', true],
      ['OPTIONAL_ONE', false],
      ['OPTIONAL_BANG', false],
      ['WITH_DEFAULT', false],
    ]);
  });

  it('reads the forService options of a root module', () => {
    const options = forServiceOptions(
      `@Module({ imports: [PlatformModule.forService({ service: 's', kafka: true, mysql: false, redis: true, configs: [AConfig, BConfig] })] }) export class M {}`,
    );
    expect(options).toEqual({
      service: 's',
      kafka: true,
      mysql: false,
      redis: true,
      api: false,
      configs: ['AConfig', 'BConfig'],
    });
    expect(
      forServiceOptions(
        `PlatformModule.forService({ service: 'a', kafka: false, mysql: true, redis: false, api: true })`,
      ).api,
    ).toBe(true);
    expect(() => forServiceOptions('export class M {}')).toThrow('forService');
  });

  it('reports a missing required variable and, when strict, one the program does not read', () => {
    const config: ProgramConfig = {
      program: 'p',
      configClasses: ['ExampleConfig'],
      variables: new Map((configClassesIn(source).get('ExampleConfig') ?? []).map((v) => [v.name, v])),
    };
    expect(envProblems(config, new Map([['REQUIRED_ONE', 'x']]), true)).toEqual([]);
    expect(envProblems(config, new Map([['TYPO_ONE', 'x']]), true)).toEqual([
      'p: required REQUIRED_ONE (ExampleConfig) is not set',
      'p: TYPO_ONE is set but p does not read it',
    ]);
    expect(
      envProblems(
        config,
        new Map([
          ['REQUIRED_ONE', 'x'],
          ['OTHER', 'y'],
        ]),
        false,
      ),
    ).toEqual([]);
  });
});

describe('container environment', () => {
  const objects: K8sObject[] = [
    { kind: 'ConfigMap', metadata: { name: 'cm' }, data: { A: '1', B: '2' } },
    { kind: 'Secret', metadata: { name: 'dev' }, data: { K: Buffer.from('v').toString('base64') } },
  ];

  it('resolves envFrom, configMapKeyRef and secretKeyRef, and external secrets as unknown values', () => {
    const env = containerEnv(
      {
        envFrom: [{ configMapRef: { name: 'cm' } }],
        env: [
          { name: 'C', valueFrom: { configMapKeyRef: { name: 'cm', key: 'B' } } },
          { name: 'D', valueFrom: { secretKeyRef: { name: 'dev', key: 'K' } } },
          { name: 'E', valueFrom: { secretKeyRef: { name: 'outside', key: 'X' } } },
        ],
      },
      objects,
      new Set(['outside']),
    );
    expect(env.problems).toEqual([]);
    expect([...env.values]).toEqual([
      ['A', '1'],
      ['B', '2'],
      ['C', '2'],
      ['D', 'v'],
      ['E', undefined],
    ]);
  });

  it('reports dangling references', () => {
    const env = containerEnv(
      {
        envFrom: [{ configMapRef: { name: 'nope' } }],
        env: [
          { name: 'C', valueFrom: { configMapKeyRef: { name: 'cm', key: 'Z' } } },
          { name: 'D', valueFrom: { secretKeyRef: { name: 'unknown', key: 'K' } } },
        ],
      },
      objects,
      new Set(),
    );
    expect(env.problems).toHaveLength(3);
  });
});

describe('network reachability', () => {
  const api = deployment('api', { app: 'api' });
  const worker = deployment('worker', { app: 'worker' });
  const policy = (name: string, spec: Record<string, unknown>): K8sObject => ({
    kind: 'NetworkPolicy',
    metadata: { name },
    spec: { policyTypes: ['Ingress'], ...spec },
  });

  it('treats pods without any policy as public', () => {
    expect(publicWorkloads([], [api, worker])).toEqual(['api', 'worker']);
  });

  it('opens only pods with a rule from anywhere, an ipBlock or every namespace', () => {
    const objects = [
      policy('deny', { podSelector: {} }),
      policy('same-ns', { podSelector: {}, ingress: [{ from: [{ podSelector: {} }] }] }),
      policy('monitoring', {
        podSelector: {},
        ingress: [{ from: [{ namespaceSelector: { matchLabels: { name: 'monitoring' } } }] }],
      }),
      policy('public', {
        podSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['api'] }] },
        ingress: [{ ports: [{ port: 'http' }] }],
      }),
    ];
    expect(publicWorkloads(objects, [api, worker])).toEqual(['api']);
    const everyNamespace = policy('all-ns', {
      podSelector: { matchLabels: { app: 'worker' } },
      ingress: [{ from: [{ namespaceSelector: {} }] }],
    });
    expect(publicWorkloads([...objects, everyNamespace], [api, worker])).toEqual(['api', 'worker']);
  });

  it('lists the ports each other namespace may open, by its labels', () => {
    const ingress = { name: 'ingress' };
    const monitoring = { name: 'monitoring' };
    const objects = [
      policy('deny', { podSelector: {} }),
      policy('same-ns', { podSelector: {}, ingress: [{ from: [{ podSelector: {} }] }] }),
      policy('scrape', {
        podSelector: {},
        ingress: [
          { from: [{ namespaceSelector: { matchLabels: monitoring } }], ports: [{ port: 'management' }] },
        ],
      }),
      policy('api', {
        podSelector: { matchLabels: { app: 'api' } },
        ingress: [{ from: [{ namespaceSelector: { matchLabels: ingress } }], ports: [{ port: 'http' }] }],
      }),
    ];
    expect(portsOpenToNamespace(objects, api, ingress)).toEqual(['http']);
    expect(portsOpenToNamespace(objects, worker, ingress)).toEqual([]);
    expect(portsOpenToNamespace(objects, api, monitoring)).toEqual(['management']);
    expect(portsOpenToNamespace(objects, worker, { name: 'elsewhere' })).toEqual([]);
    expect(portsOpenToNamespace([], worker, ingress)).toEqual(['*']);
    const anyPort = policy('any', {
      podSelector: { matchLabels: { app: 'worker' } },
      ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8' } }] }],
    });
    expect(portsOpenToNamespace([...objects, anyPort], worker, { name: 'elsewhere' })).toEqual(['*']);
  });
});

describe('PromQL checks', () => {
  const known = new Set(['ums_a_total', 'ums_h_seconds_bucket']);

  it('extracts selected metrics, not functions or labels', () => {
    expect(
      metricsInPromql(
        'histogram_quantile(0.99, sum by (le) (rate(ums_h_seconds_bucket{x="y"}[5m]))) / ums_a_total',
      ).metrics,
    ).toEqual(['ums_h_seconds_bucket', 'ums_a_total']);
  });

  it('reports syntax errors and unknown metrics', () => {
    expect(promqlProblems('r', 'sum(rate(ums_a_total[5m])) > 0', known)).toEqual([]);
    expect(promqlProblems('r', 'sum(rate(ums_b_total[5m])) > 0', known)).toEqual([
      'r: metric ums_b_total is not exposed by any service',
    ]);
    expect(promqlProblems('r', 'sum(rate(ums_a_total[5m]) > ', known).length).toBeGreaterThan(0);
  });
});

describe('quantities', () => {
  it('converts Kubernetes quantities', () => {
    expect(quantity('320Mi')).toBe(320 * 1024 * 1024);
    expect(quantity('250m')).toBeCloseTo(0.25);
    expect(quantity('1')).toBe(1);
    expect(() => quantity('lots')).toThrow('not a quantity');
  });
});
