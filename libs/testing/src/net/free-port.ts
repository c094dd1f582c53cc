import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const LINUX_EPHEMERAL_RANGE = '/proc/sys/net/ipv4/ip_local_port_range';
const LOWEST = 10_000;
const HIGHEST = 65_535;
const ATTEMPTS = 200;
const handedOut = new Set<number>();

/**
 * A port that is free now and lies outside the kernel's ephemeral range. Ports from that range
 * (what `listen(0)` gives) are also the source ports of outbound connections, so a service
 * restarted on its old port after a kill can find it taken by some client's socket (EADDRINUSE).
 * Ports below or above the range are only ever taken by listeners.
 */
export async function freePort(): Promise<number> {
  const [low, high] = candidateRange();
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
