/**
 * The memory probes both hop processes (gateway-process.mjs, bare-proxy.ts) answer over IPC, so the
 * concurrency scenario and heap-per-stream.ts read them alike:
 *
 * - `gc`: a full garbage collection (the process runs with --expose-gc), then `process.memoryUsage()`;
 * - `heap-snapshot`: a heap snapshot written synchronously (the reply means the file is complete) into
 *   BENCH_HEAP_DIR, else the system's temporary folder, never the working directory (the repo).
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';

export function answerMemoryProbes() {
  const collect = globalThis.gc;
  const snapshotPath = () => join(process.env.BENCH_HEAP_DIR ?? tmpdir(), `hop-${process.pid}-${Date.now()}.heapsnapshot`);
  process.on('message', (message) => {
    if (message === 'heap-snapshot') process.send?.({ type: 'heap-snapshot', path: writeHeapSnapshot(snapshotPath()) });
    if (message !== 'gc') return;
    collect?.();
    process.send?.({ collected: collect !== undefined, memory: process.memoryUsage() });
  });
}
