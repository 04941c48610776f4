/** Child processes of the bench: spawn, wait for `READY <url>`, read memory, and always kill. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Child {
  name: string;
  pid: number;
  url: string;
  process: ChildProcess;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

const live = new Set<ChildProcess>();

/** Kill whatever is still running, synchronously (usable from an 'exit' handler). */
export function killAll(): void {
  for (const child of live) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  live.clear();
}

let handlersInstalled = false;
function installHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.once('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\nbench: ${signal}, stopping child processes\n`);
      killAll();
      process.exit(130);
    });
  }
}

export interface SpawnOptions {
  /** Node flags before the script (e.g. --cpu-prof, --expose-gc). */
  nodeArgs?: string[];
  ipc?: boolean;
  startTimeoutMs?: number;
  /** Extra environment variables (BENCH_DIAG=1 turns on diag-hooks.mjs). */
  env?: Record<string, string>;
}

/**
 * Runs `node [nodeArgs] [--import tsx] <script> [args]` from the repo root and waits for its READY
 * line. A `.mjs` script runs on plain node (the gateway from dist/), a `.ts` one through tsx.
 */
export function spawnChild(name: string, script: string, args: string[], options: SpawnOptions = {}): Promise<Child> {
  installHandlers();
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...loader, script, ...args], {
    cwd: REPO_ROOT,
    stdio: options.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4_000);
  });

  const stop = (graceMs = 5_000) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill('SIGTERM');
    });

  return new Promise<Child>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not start in time:\n${stderr}`));
    }, options.startTimeoutMs ?? 30_000);
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /READY (\S+)/.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      child.stdout?.removeAllListeners('data');
      child.stdout?.resume(); // keep draining so a chatty child never blocks
      resolve({ name, pid: child.pid!, url: match[1]!, process: child, stop });
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited before READY (code ${code}, signal ${signal}):\n${stderr}`));
    });
  });
}

/** Resident set size of a process in KiB, from /proc/<pid>/status (VmRSS). */
export function rssKiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+)\s+kB/.exec(status);
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]);
}

export interface GcReply {
  collected: boolean;
  memory: NodeJS.MemoryUsage;
}

/**
 * Asks a gateway-process child (IPC; --expose-gc for the collection) for a full GC and its
 * process.memoryUsage() afterwards; undefined when it does not answer.
 */
export function requestGc(child: Child, timeoutMs = 5_000): Promise<GcReply | undefined> {
  const proc = child.process;
  if (!proc.send) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(undefined), timeoutMs);
    const onMessage = (message: unknown) => done(message as GcReply);
    function done(reply: GcReply | undefined) {
      clearTimeout(timer);
      proc.off('message', onMessage);
      resolve(reply);
    }
    proc.on('message', onMessage);
    proc.send('gc');
  });
}

/**
 * CPU time (user + system) a process has used so far, ms: the sum over its threads of the first field
 * of /proc/<pid>/task/<tid>/schedstat (ns on CPU), so GC and libuv threads count too and a run of a
 * few ms still resolves (utime/stime in /proc/<pid>/stat tick at 10 ms). Works on any child, also one
 * strace is attached to.
 */
export function cpuMs(pid: number): number {
  let ms = 0;
  for (const value of Object.values(cpuMsByThread(pid))) ms += value;
  return ms;
}

/**
 * CPU ms of the main thread (`main`) and of the other threads by name (`/proc/<pid>/task/<tid>/comm`;
 * on Node 20 V8's GC/compiler helpers and the libuv pool are all called `node`), summed per name.
 */
export function cpuMsByThread(pid: number): Record<string, number> {
  const byName: Record<string, number> = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = tid === String(pid) ? 'main' : `other (${readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()})`;
      const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      byName[name] = (byName[name] ?? 0) + ns / 1e6;
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return byName;
}

/** Sends `message` over IPC and resolves with the first reply of `type`; undefined on timeout. */
export function ask<T>(child: Child, message: string, type: string, timeoutMs = 10_000): Promise<T | undefined> {
  const proc = child.process;
  if (!proc.send) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(undefined), timeoutMs);
    const onMessage = (reply: unknown) => {
      if ((reply as { type?: unknown } | null)?.type === type) done(reply as T);
    };
    function done(reply: T | undefined) {
      clearTimeout(timer);
      proc.off('message', onMessage);
      resolve(reply);
    }
    proc.on('message', onMessage);
    proc.send(message);
  });
}

/** The soft limit on open files of this process (children inherit it). */
export function openFileLimit(): number {
  const limits = readFileSync('/proc/self/limits', 'utf8');
  const match = /Max open files\s+(\d+|unlimited)/.exec(limits);
  if (!match || match[1] === 'unlimited') return Number.POSITIVE_INFINITY;
  return Number(match[1]);
}
