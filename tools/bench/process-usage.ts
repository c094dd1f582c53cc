import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Linux reports process CPU times in clock ticks; 100 per second on every platform Node supports here. */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used so far, from /proc; null once it is gone. */
export function cpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: fields are counted after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** Peak resident set of a live process (VmHWM), in MB; null once it is gone. */
export function peakRssMb(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Math.round(Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024);
  } catch {
    return null; // the process is gone: no figure rather than a wrong one
  }
}

/**
 * The pid of the local process listening on TCP `port`, from /proc (the socket's inode in
 * /proc/net/tcp*, then the process holding it); undefined when none is found or /proc hides it.
 * A database server is found by its port: a second one on the machine (MySQL beside MariaDB, say)
 * would share a command name with it, or run under a loader's name.
 */
export function findListener(port: number): number | undefined {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const inode = listeningInode(line, port);
      if (inode !== undefined) inodes.add(inode);
    }
  }
  if (inodes.size === 0) return undefined;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      for (const fd of readdirSync(`/proc/${entry}/fd`)) {
        const target = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${entry}/fd/${fd}`))?.[1];
        if (target !== undefined && inodes.has(target)) return Number(entry);
      }
    } catch {
      // gone, or not ours to read
    }
  }
  return undefined;
}

/** The socket inode of one /proc/net/tcp line if it is a listener (state 0A) on `port`. */
export function listeningInode(line: string, port: number): string | undefined {
  const fields = line.trim().split(/\s+/);
  const local = fields[1];
  if (local === undefined || fields[3] !== '0A') return undefined;
  if (Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16) !== port) return undefined;
  return fields[9];
}

/**
 * The pid of the database server a benchmark uses: the process listening on its port, else the first
 * MariaDB or MySQL server process (when /proc hides the socket's owner).
 */
export function databaseServerPid(port: number): number | undefined {
  return findListener(port) ?? findProcess('mariadbd', 'mysqld');
}

/** The pid of the first process whose command name is one of `names` (e.g. the local Redis server). */
export function findProcess(...names: string[]): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (names.includes(readFileSync(`/proc/${entry}/comm`, 'utf8').trim())) return Number(entry);
    } catch {
      // gone between the listing and the read
    }
  }
  return undefined;
}

/** Per label: CPU seconds and the average cores they amount to; null for a process not found or gone. */
export type CpuFigures = Record<string, { readonly cpuSeconds: number; readonly cores: number } | null>;

/**
 * CPU used by each watched process between `start` and `stop`, in seconds and in cores (CPU seconds
 * per wall second), so a benchmark shows where the machine's cores went.
 */
export class CpuMeter {
  private readonly started = new Map<string, number>();
  private startedAt = 0;

  private readonly pids: Record<string, number | undefined>;

  constructor(pids: Readonly<Record<string, number | undefined>>) {
    this.pids = { ...pids };
  }

  start(): void {
    this.startedAt = performance.now();
    for (const [label, pid] of Object.entries(this.pids)) {
      const used = cpuSeconds(pid);
      if (used !== null) this.started.set(label, used);
    }
  }

  /** Watches a process started after `start`: all the CPU it has used counts, its start-up included. */
  add(label: string, pid: number | undefined): void {
    this.pids[label] = pid;
    if (pid !== undefined) this.started.set(label, 0);
  }

  /** Per label: CPU seconds used since start and the average cores they amount to. */
  stop(): CpuFigures {
    const wallSeconds = (performance.now() - this.startedAt) / 1000;
    const figures: CpuFigures = {};
    for (const [label, pid] of Object.entries(this.pids)) {
      const before = this.started.get(label);
      const now = cpuSeconds(pid);
      if (before === undefined || now === null) {
        figures[label] = null;
        continue;
      }
      const used = now - before;
      figures[label] = {
        cpuSeconds: Math.round(used * 10) / 10,
        cores: Math.round((used / wallSeconds) * 100) / 100,
      };
    }
    return figures;
  }
}
