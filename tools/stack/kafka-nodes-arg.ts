/**
 * `--brokers N` of the demo and the benchmarks: 1 (default) starts a single-node KRaft broker, 3 a
 * three-node KRaft cluster on loopback (topics replicated three times, min.insync.replicas 2).
 */
export function kafkaNodesArg(argv: readonly string[]): 1 | 3 {
  const at = argv.indexOf('--brokers');
  if (at < 0) return 1;
  const value = argv[at + 1];
  if (value === '1') return 1;
  if (value === '3') return 3;
  throw new Error(`--brokers is 1 or 3, got ${value ?? 'nothing'}`);
}
