/**
 * Helpers for the hardening suite: bounded HTTP exchanges with the real gateway (every answer read to
 * its end, SSE frames parsed), and the checks every answer must pass whatever was sent: valid JSON in
 * the caller's protocol version, no stack trace, no local path, no configured secret.
 */
import { createParser } from 'eventsource-parser';
import { expect } from 'vitest';

/** Every exchange must be over within this bound (a hang is a failure, not a slow test). */
export const EXCHANGE_BOUND_MS = 5_000;

export const TOKEN = 'hardening-gateway-token-5d1c9e';
export const API_KEY = 'hardening-bailian-key-8f2a47';
export const SECRETS = [TOKEN, API_KEY];

/** Credentials of each surface, so the checks reach the handlers instead of stopping at the 401. */
export const V1_HEADERS = { 'a2a-version': '1.0', authorization: `Bearer ${TOKEN}` } as const;
export const V025_HEADERS = { 'x-api-key': API_KEY } as const;

export interface SseFrame {
  event?: string;
  data: string;
}

export interface Exchange {
  status: number;
  contentType: string;
  text: string;
  /** The body as JSON, when it is JSON. */
  json?: unknown;
  /** The frames, when the answer is an SSE stream. */
  frames?: SseFrame[];
  ms: number;
}

/** Sends one request and reads the whole answer (JSON or SSE) within `boundMs` (EXCHANGE_BOUND_MS unless told). */
export async function exchange(url: string, init: RequestInit = {}, boundMs = EXCHANGE_BOUND_MS): Promise<Exchange> {
  const started = Date.now();
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(boundMs) });
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  const answer: Exchange = { status: response.status, contentType, text, ms: Date.now() - started };
  if (contentType.startsWith('text/event-stream')) answer.frames = parseSse(text);
  else {
    try {
      answer.json = JSON.parse(text) as unknown;
    } catch {
      // left undefined: the checks decide whether a non-JSON body is acceptable
    }
  }
  return answer;
}

export function parseSse(text: string): SseFrame[] {
  const frames: SseFrame[] = [];
  const parser = createParser({ onEvent: (event) => frames.push({ ...(event.event ? { event: event.event } : {}), data: event.data }) });
  parser.feed(text);
  return frames;
}

/** An SSE stream read in the background as it arrives. */
export interface LiveStream {
  response: Response;
  /** The next frame; undefined once the stream has ended. */
  next(): Promise<SseFrame | undefined>;
  /** Frames received so far, including those `next()` already handed out. */
  frames: SseFrame[];
  /** Comments received so far (`: ping ...`). */
  comments: string[];
  /** Settles when the stream has ended (or the connection dropped). */
  ended: Promise<void>;
  abort(): void;
}

export async function openLiveStream(url: string, init: RequestInit): Promise<LiveStream> {
  const controller = new AbortController();
  const response = await fetch(url, { ...init, signal: controller.signal });
  const frames: SseFrame[] = [];
  const comments: string[] = [];
  let handedOut = 0;
  let wake: (() => void) | undefined;
  const parser = createParser({
    onEvent: (event) => {
      frames.push({ ...(event.event ? { event: event.event } : {}), data: event.data });
      wake?.();
    },
    onComment: (comment) => comments.push(comment),
  });
  let done = false;
  const ended = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body ?? []) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
    } catch {
      // aborted or cut: the stream is over either way
    }
    done = true;
    wake?.();
  })();
  return {
    response,
    frames,
    comments,
    ended,
    abort: () => controller.abort(),
    async next() {
      while (handedOut >= frames.length && !done) await new Promise<void>((resolve) => (wake = resolve));
      return frames[handedOut++];
    },
  };
}

/** Every frame until the stream ends. */
export async function drainFrames(stream: LiveStream): Promise<SseFrame[]> {
  const frames: SseFrame[] = [];
  for (let frame = await stream.next(); frame; frame = await stream.next()) frames.push(frame);
  return frames;
}

const LEAK_MARKERS: RegExp[] = [
  /^\s+at .+/m, // a stack frame
  /\b\w*Error: [^"\n]*\/[\w.-]+\/[\w./-]+/, // an error message with a path in it
  /Traceback \(most recent call last\)/,
  /\/work\b/,
  /\/home\//,
  /\/root\b/,
  /\/usr\/(?:lib|local)\//,
  /node_modules/,
  /\bsrc\//,
  /\.ts:\d+/,
  /file:\/\/\//,
];

/**
 * What in `answer` leaks: stack traces, local paths, configured secrets. A match that the caller itself
 * sent (`request`, e.g. an id echoed back, or text the demo agent echoes) is the caller's data, not a leak.
 */
export function leaksIn(answer: string, request = '', secrets: readonly string[] = SECRETS): string[] {
  const found: string[] = [];
  for (const marker of LEAK_MARKERS) {
    for (const match of answer.matchAll(new RegExp(marker.source, `${marker.flags.replace('g', '')}g`))) {
      if (!request.includes(match[0])) found.push(match[0].slice(0, 120));
    }
  }
  for (const secret of secrets) if (answer.includes(secret) && !request.includes(secret)) found.push('a configured secret');
  return found;
}

export function expectNoLeak(answer: string, request = ''): void {
  expect(leaksIn(answer, request), answer.slice(0, 400)).toEqual([]);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Codes whose 1.0 error carries a google.rpc.ErrorInfo (A2A 1.0 §9.5: every A2A-specific code and -32602). */
const CODES_WITH_REASON = new Set([-32602, -32001, -32002, -32003, -32004, -32005, -32006, -32007, -32008, -32009]);

export type Dialect = '1.0' | '0.2.5';

/** A JSON-RPC error object as `dialect` defines it. */
export function expectRpcError(error: unknown, dialect: Dialect): void {
  expect(isRecord(error), JSON.stringify(error)).toBe(true);
  const { code, message, data } = error as Record<string, unknown>;
  expect(Number.isInteger(code), `code ${String(code)}`).toBe(true);
  expect(typeof message).toBe('string');
  expect((message as string).length).toBeGreaterThan(0);
  if (dialect === '0.2.5') {
    expect(Object.keys(error as object).sort()).toEqual(['code', 'message']);
    return;
  }
  if (data !== undefined) expect(Array.isArray(data)).toBe(true);
  if (CODES_WITH_REASON.has(code as number)) {
    const infos = (data as unknown[] | undefined)?.filter(
      (detail) => isRecord(detail) && detail['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo',
    );
    expect(infos?.length, `ErrorInfo for ${String(code)}`).toBe(1);
    const info = infos![0] as Record<string, unknown>;
    expect(typeof info.reason).toBe('string');
    expect(info.domain).toBe('a2a-protocol.org');
  }
}

/** A JSON-RPC response envelope: `jsonrpc`, `id` and exactly one of `result` / `error`. */
export function expectRpcEnvelope(body: unknown, dialect: Dialect, expectedId?: unknown): Record<string, unknown> {
  expect(isRecord(body), JSON.stringify(body)?.slice(0, 300)).toBe(true);
  const envelope = body as Record<string, unknown>;
  expect(envelope.jsonrpc).toBe('2.0');
  expect('id' in envelope).toBe(true);
  expect(['string', 'number'].includes(typeof envelope.id) || envelope.id === null).toBe(true);
  if (expectedId !== undefined) expect(JSON.stringify(envelope.id)).toBe(JSON.stringify(expectedId));
  expect('result' in envelope !== 'error' in envelope, 'exactly one of result and error').toBe(true);
  if ('error' in envelope) expectRpcError(envelope.error, dialect);
  return envelope;
}

/** The id a server must echo: a string or a finite number sent in an object body (else the answer may say null). */
export function echoableId(payload: unknown): string | number | undefined {
  if (!isRecord(payload)) return undefined;
  const { id } = payload;
  if (typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))) return id;
  return undefined;
}

/** The facade's 401 (src/surfaces/v025/auth.ts): a JSON-RPC error object, which a 0.2.5 client reports in its words. */
const FACADE_UNAUTHORIZED = { id: null, error: { code: -32000, message: 'Unauthorized: a valid API key is required in the X-API-KEY header' } };

/**
 * The answer to anything sent to a JSON-RPC endpoint: 200 with a JSON-RPC body (an envelope, or SSE
 * frames that are each an envelope) or the designed 401; never a 5xx, never a leak.
 */
export function expectJsonRpcAnswer(answer: Exchange, dialect: Dialect, sent: { text: string; payload?: unknown }): void {
  expect(answer.ms).toBeLessThan(EXCHANGE_BOUND_MS);
  expectNoLeak(answer.text, sent.text);
  if (answer.status === 401) {
    // On `POST /` the surface the caller's headers name answers it (a 1.0 version or credential: the 1.0 surface's).
    expect([{ error: 'Unauthorized' }, FACADE_UNAUTHORIZED]).toContainEqual(answer.json);
    return;
  }
  expect(answer.status, answer.text.slice(0, 300)).toBe(200);
  const id = echoableId(sent.payload);
  if (answer.frames) {
    expect(answer.frames.length).toBeGreaterThan(0);
    for (const frame of answer.frames) expectRpcEnvelope(JSON.parse(frame.data), dialect, id);
    return;
  }
  expect(answer.contentType).toMatch(/^application\/json/);
  const envelope = expectRpcEnvelope(answer.json, dialect);
  // A usable id is echoed, except by a parse error (-32700: nothing was readable).
  const error = envelope.error as { code: number } | undefined;
  if (id !== undefined && error?.code !== -32700) expect(JSON.stringify(envelope.id)).toBe(JSON.stringify(id));
}

/** The 1.0 HTTP+JSON answer: google.rpc.Status on errors, a designed JSON body otherwise; never a leak or a bare 5xx. */
export function expectRestAnswer(answer: Exchange, sentText = ''): void {
  expect(answer.ms).toBeLessThan(EXCHANGE_BOUND_MS);
  expectNoLeak(answer.text, sentText);
  if (answer.frames) {
    expect(answer.status).toBe(200);
    for (const frame of answer.frames) expect(() => JSON.parse(frame.data) as unknown).not.toThrow();
    return;
  }
  expect(answer.json, `${answer.status} ${answer.text.slice(0, 200)}`).toBeDefined();
  if (answer.status === 200) return;
  expect([400, 401, 404, 405, 413, 415, 500]).toContain(answer.status);
  const body = answer.json as Record<string, unknown>;
  if (answer.status === 401 || answer.status === 405 || (answer.status === 404 && body.error === 'Not Found')) return;
  const status = body.error as Record<string, unknown>;
  expect(isRecord(status), answer.text).toBe(true);
  expect(status.code).toBe(answer.status);
  expect(typeof status.status).toBe('string');
  expect(typeof status.message).toBe('string');
  expect(Array.isArray(status.details)).toBe(true);
}

/** The gateway is still there and answering promptly. */
export async function expectHealthy(baseUrl: string): Promise<void> {
  const health = await exchange(`${baseUrl}/health`);
  expect(health.status).toBe(200);
  expect(health.json).toEqual({ status: 'healthy' });
}
