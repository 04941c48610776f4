/**
 * Load: 200 concurrent streaming clients for 20 s through the gateway (1.0 JSON-RPC, 1.0 REST and
 * 0.2.5 streams mixed, demo agent with 1 ms chunks), every turn complete and error-free, and the
 * gateway's memory after the load within MEMORY_BOUND of a warm-up baseline (same load for a few
 * seconds first, so pools, JIT and the capped task stores are already at their working size).
 * The gateway runs in a child process (test/e2e/hardening/fixtures/gateway-process.ts) so the memory
 * measured is its own, after full GCs (`--expose-gc`).
 */
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { gatewayChildSuite } from './fixtures/gateway-child.js';
import { parseSse } from './support.js';

const CLIENTS = 200;
const WARM_UP_MS = 5_000;
const LOAD_MS = 20_000;
const MiB = 1024 * 1024;
/** Growth of the gateway's RSS (after GC) from the warm-up baseline to the end of the load. */
const MEMORY_BOUND = 30 * MiB;
/** Growth of its live JS heap: a leak of per-turn state shows here first. */
const HEAP_BOUND = 10 * MiB;

const gateway = gatewayChildSuite(CLIENTS);
const measure = () => gateway.measure();

type Flavour = '1.0 jsonrpc' | '1.0 rest' | '0.2.5';
const FLAVOURS: Flavour[] = ['1.0 jsonrpc', '0.2.5', '1.0 rest', '0.2.5'];

/** What the checks read of a stream's last frame: a JSON-RPC envelope, or (REST) the bare StreamResponse. */
interface StreamResult {
  final?: boolean;
  status?: { state?: string };
  statusUpdate?: { status?: { state?: string } };
}
interface LastFrame extends StreamResult {
  id?: unknown;
  result?: StreamResult;
}

let turnCounter = 0;

/** One streamed turn; returns an error description, or undefined when the turn came through whole. */
async function streamTurn(flavour: Flavour): Promise<string | undefined> {
  const n = ++turnCounter;
  const text = `load turn ${n} of a streaming client`;
  const id = `load-${n}`;
  let path = '/';
  let headers: Record<string, string> = { 'content-type': 'application/json', 'a2a-version': '1.0' };
  let body: string;
  if (flavour === '0.2.5') {
    path = '/stream';
    headers = { 'content-type': 'application/json' };
    body = JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'message/stream',
      params: { message: { kind: 'message', role: 'user', messageId: `m-${id}`, parts: [{ kind: 'text', text }] } },
    });
  } else {
    const params = { message: { role: 'ROLE_USER', messageId: `m-${id}`, parts: [{ text }] } };
    if (flavour === '1.0 rest') {
      path = '/message:stream';
      body = JSON.stringify(params);
    } else body = JSON.stringify({ jsonrpc: '2.0', id, method: 'SendStreamingMessage', params });
  }
  const response = await request(`${gateway.url}${path}`, {
    method: 'POST',
    headers,
    body,
    dispatcher: gateway.dispatcher,
    headersTimeout: 15_000,
    bodyTimeout: 15_000,
  });
  const payload = await response.body.text();
  if (response.statusCode !== 200) return `${flavour}: HTTP ${response.statusCode} ${payload.slice(0, 200)}`;
  const frames = parseSse(payload);
  if (frames.length === 0) return `${flavour}: no frames`;
  if (frames.some((frame) => frame.event === 'error')) return `${flavour}: error frame ${payload.slice(-300)}`;
  const last = JSON.parse(frames.at(-1)!.data) as LastFrame;
  if (flavour === '0.2.5') {
    if (last.id !== id || last.result?.final !== true || last.result?.status?.state !== 'completed')
      return `${flavour}: ended with ${frames.at(-1)!.data.slice(0, 300)}`;
    return undefined;
  }
  const result = flavour === '1.0 rest' ? last : last.result;
  if (flavour === '1.0 jsonrpc' && last.id !== id) return `${flavour}: wrong id ${String(last.id)}`;
  if (result?.statusUpdate?.status?.state !== 'TASK_STATE_INPUT_REQUIRED') return `${flavour}: ended with ${frames.at(-1)!.data.slice(0, 300)}`;
  return undefined;
}

/** CLIENTS clients, each streaming turn after turn until `ms` have passed. */
async function load(ms: number): Promise<{ turns: number; errors: string[] }> {
  const deadline = Date.now() + ms;
  const errors: string[] = [];
  let turns = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let i = 0; Date.now() < deadline; i++) {
        const flavour = FLAVOURS[(client + i) % FLAVOURS.length]!;
        const error = await streamTurn(flavour).catch((cause: unknown) => `${flavour}: ${String(cause)}`);
        turns++;
        if (error) errors.push(error);
      }
    }),
  );
  return { turns, errors };
}

describe('load', () => {
  it(`${CLIENTS} concurrent streaming clients for ${LOAD_MS / 1000} s: no error, memory back within bounds`, async () => {
    const warmUp = await load(WARM_UP_MS);
    expect(warmUp.errors.slice(0, 5)).toEqual([]);
    const baseline = await measure();
    expect(baseline.gc, 'the gateway process runs with --expose-gc').toBe(true);

    const started = Date.now();
    const run = await load(LOAD_MS);
    const elapsed = Date.now() - started;
    const after = await measure();

    const growth = { rss: (after.rss - baseline.rss) / MiB, heap: (after.heapUsed - baseline.heapUsed) / MiB };
    console.info(
      `load: ${run.turns} streamed turns in ${(elapsed / 1000).toFixed(1)} s (${Math.round(run.turns / (elapsed / 1000))}/s) by ${CLIENTS} clients; ` +
        `gateway RSS ${(baseline.rss / MiB).toFixed(1)} → ${(after.rss / MiB).toFixed(1)} MiB (${growth.rss >= 0 ? '+' : ''}${growth.rss.toFixed(1)}), ` +
        `heap ${(baseline.heapUsed / MiB).toFixed(1)} → ${(after.heapUsed / MiB).toFixed(1)} MiB`,
    );
    expect(run.errors.slice(0, 5), `${run.errors.length} failed turns`).toEqual([]);
    expect(run.turns).toBeGreaterThan(CLIENTS * 5);
    expect(after.rss - baseline.rss).toBeLessThan(MEMORY_BOUND);
    expect(after.heapUsed - baseline.heapUsed).toBeLessThan(HEAP_BOUND);
  }, 90_000);
});
