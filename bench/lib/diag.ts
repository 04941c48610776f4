/** Readers for the diagnostics run: strace -c summaries, --trace-gc lines and sampling heap profiles. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { sourceOf } from '../profile-summary.js';
import type { Child } from './processes.js';

export interface SyscallRow {
  syscall: string;
  calls: number;
  errors: number;
}

/** The rows of an `strace -c` summary file, most calls first (the `total` row left out). */
export function parseStraceSummary(text: string): SyscallRow[] {
  const rows: SyscallRow[] = [];
  for (const line of text.split('\n')) {
    const cells = line.trim().split(/\s+/);
    if (cells.length < 5 || !/^[\d.]+$/.test(cells[0]!)) continue;
    const syscall = cells[cells.length - 1]!;
    if (syscall === 'total') continue;
    rows.push({ syscall, calls: Number(cells[3]), errors: cells.length === 6 ? Number(cells[4]) : 0 });
  }
  return rows.sort((a, b) => b.calls - a.calls);
}

export interface Strace {
  /** Detaches (SIGINT) and resolves once strace has written its summary. */
  stop(): Promise<SyscallRow[]>;
}

/** Attaches `strace -c -f` to a running child (all its threads); resolves once it is attached. */
export async function attachStrace(child: Child, file: string): Promise<Strace> {
  const strace: ChildProcess = spawn('strace', ['-c', '-f', '-p', String(child.pid), '-o', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`strace did not attach: ${stderr}`)), 10_000);
    strace.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/attached/.test(stderr)) {
        clearTimeout(timer);
        resolve();
      }
    });
    strace.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`strace exited (${code}): ${stderr}`));
    });
  });
  return {
    stop: () =>
      new Promise((resolve) => {
        strace.once('exit', () => resolve(parseStraceSummary(readFileSync(file, 'utf8'))));
        strace.kill('SIGINT');
      }),
  };
}

export interface TraceGc {
  scavenges: number;
  markCompacts: number;
  pauseMs: number;
  /** Bytes allocated in the window: heap before each GC minus heap after the previous one, summed. */
  allocatedBytes: number;
}

// e.g. "[123:0x55]   4321 ms: Scavenge 12.3 (14.0) -> 11.1 (15.0) MB, 0.52 / 0.00 ms  (average mu ...)"
const GC_LINE =
  /ms: (Scavenge|Mark-Compact|Mark-sweep|Mark-Compact \(reduce\)|Minor Mark-Compact)\S* ([\d.]+) \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB, ([\d.]+) \/ ([\d.]+) ms/;

/** Counts what `--trace-gc` printed on a child's stdout while `window()` is open. */
export function watchTraceGc(child: Child): { open(): void; close(): TraceGc } {
  let recording = false;
  let lastAfterMb: number | undefined;
  let pending = '';
  let stats: TraceGc = { scavenges: 0, markCompacts: 0, pauseMs: 0, allocatedBytes: 0 };
  child.process.stdout!.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const match = GC_LINE.exec(line);
      if (!match) continue;
      const before = Number(match[2]);
      const after = Number(match[3]);
      if (recording) {
        if (match[1] === 'Scavenge') stats.scavenges++;
        else stats.markCompacts++;
        stats.pauseMs += Number(match[4]);
        if (lastAfterMb !== undefined) stats.allocatedBytes += Math.max(0, before - lastAfterMb) * 1024 * 1024;
      }
      lastAfterMb = after;
    }
  });
  return {
    open() {
      stats = { scavenges: 0, markCompacts: 0, pauseMs: 0, allocatedBytes: 0 };
      recording = true;
    },
    close() {
      recording = false;
      return { ...stats, pauseMs: Math.round(stats.pauseMs * 100) / 100 };
    },
  };
}

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

export interface Allocations {
  totalBytes: number;
  byFunction: Array<{ name: string; bytes: number; percent: number }>;
  bySource: Array<{ name: string; bytes: number; percent: number }>;
}

/** Bytes allocated (sampled) by function and by source (repo file, npm package, node: module). */
export function summarizeHeapProfile(file: string, top = 25): Allocations {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { head: HeapNode };
  const functions = new Map<string, number>();
  const sources = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const source = sourceOf(url);
    const name = `${functionName || '(anonymous)'} ${source}${url && lineNumber >= 0 ? `:${lineNumber + 1}` : ''}`;
    functions.set(name, (functions.get(name) ?? 0) + node.selfSize);
    sources.set(source, (sources.get(source) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  const rank = (map: Map<string, number>) =>
    [...map.entries()]
      .filter(([, bytes]) => bytes > 0)
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, bytes]) => ({ name, bytes, percent: Math.round((bytes / total) * 1000) / 10 }));
  return { totalBytes: total, byFunction: rank(functions), bySource: rank(sources) };
}
