import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const LINUX_EPHEMERAL_RANGE = '/proc/sys/net/ipv4/ip_local_port_range';
const LOWEST = 10_000;
const HIGHEST = 65_535;
const ATTEMPTS = 200;
/** Jest workers each probe their own slice of the range (see workerSlice). */
const WORKER_SLICES = 8;
const handedOut = new Set<number>();

/**
 * A port that is free now and lies outside the kernel's ephemeral range. Ports from that range
 * (what `listen(0)` gives) are also the source ports of outbound connections, so a service
 * restarted on its old port after a kill can find it taken by some client's socket (EADDRINUSE).
 * Ports below or above the range are only ever taken by listeners.
 */
export async function freePort(): Promise<number> {
  const [low, high] = workerSlice(candidateRange(), process.env['JEST_WORKER_ID']);
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (handedOut.has(port)) continue;
    if (await canListen(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port in ${low}-${high} after ${ATTEMPTS} attempts`);
}

/**
 * The part of `range` a Jest worker takes its ports from: workers run side by side, and two of them
 * probing the same free port before either listens on it would both get it (EADDRINUSE in one). Each
 * worker has a slice of its own; a process outside Jest (global set-up, the demo) uses the whole range,
 * and what it listens on is taken before the workers probe.
 */
export function workerSlice(
  range: readonly [number, number],
  workerId: string | undefined,
): readonly [number, number] {
  const worker = Number(workerId);
  if (!Number.isInteger(worker) || worker < 1) return range;
  const [low, high] = range;
  const size = Math.floor((high - low + 1) / WORKER_SLICES);
  const start = low + ((worker - 1) % WORKER_SLICES) * size;
  return [start, start + size - 1];
}

function candidateRange(): readonly [number, number] {
  const [ephemeralLow, ephemeralHigh] = ephemeralRange();
  if (ephemeralLow - LOWEST >= 5_000) return [LOWEST, ephemeralLow - 1];
  if (HIGHEST - ephemeralHigh >= 2_000) return [ephemeralHigh + 1, HIGHEST];
  return [LOWEST, HIGHEST];
}

function ephemeralRange(): readonly [number, number] {
  try {
    const [low = NaN, high = NaN] = readFileSync(LINUX_EPHEMERAL_RANGE, 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    if (Number.isInteger(low) && Number.isInteger(high)) return [low, high];
  } catch {
    // Not Linux: the IANA dynamic range below.
  }
  return [49_152, 65_535];
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}
