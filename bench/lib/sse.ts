/** A timing SSE client: when each event arrived, and how long after the agent stamped it. */
import { Client } from 'undici';
import { nsToMs } from './stats.js';

export interface StreamTiming {
  /** Request sent → first event (any `data:` frame) arrived, ms. */
  firstEventMs: number;
  events: number;
  /** Arrival − agent send time (`t=<ns>` in the chunk text), ms, one per stamped event. */
  addedMs: number[];
  /** First → last event, ms. */
  spanMs: number;
  /** Last frame looked like an error (an `event: error` frame or a JSON-RPC error). */
  error?: string;
}

const STAMP = /t=(\d+)/;

export interface StreamRequest {
  path?: string;
  headers: Readonly<Record<string, string>>;
  body: string;
  timeoutMs: number;
  /** Collect `addedMs` (costs a regex per event). */
  stamps: boolean;
}

/**
 * One streaming call on `client`, read to its end (bounded by `timeoutMs`). Events are split on the
 * blank line; every frame of one socket read shares that read's arrival time, which is when the
 * client could first have seen it.
 */
export async function timedStream(client: Client, request: StreamRequest): Promise<StreamTiming> {
  const signal = AbortSignal.timeout(request.timeoutMs);
  const t0 = process.hrtime.bigint();
  const response = await client.request({
    path: request.path ?? '/',
    method: 'POST',
    headers: request.headers,
    body: request.body,
    signal,
  });
  let first: bigint | undefined;
  let last = t0;
  let events = 0;
  let pending = '';
  let lastFrame = '';
  const addedMs: number[] = [];
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    const arrival = process.hrtime.bigint();
    pending += chunk.toString('utf8');
    let end = pending.indexOf('\n\n');
    while (end >= 0) {
      const frame = pending.slice(0, end);
      pending = pending.slice(end + 2);
      end = pending.indexOf('\n\n');
      if (!frame.includes('data:')) continue; // `: ping` comments
      events++;
      first ??= arrival;
      last = arrival;
      lastFrame = frame;
      if (!request.stamps) continue;
      const stamp = STAMP.exec(frame)?.[1];
      if (stamp) addedMs.push(nsToMs(arrival - BigInt(stamp)));
    }
  }
  // A plain JSON answer (an error before the first event) is one event without framing.
  if (events === 0 && pending.trim() !== '') {
    events = 1;
    first = last = process.hrtime.bigint();
    lastFrame = pending;
  }
  const timing: StreamTiming = {
    firstEventMs: first === undefined ? Number.NaN : nsToMs(first - t0),
    events,
    addedMs,
    spanMs: first === undefined ? 0 : nsToMs(last - first),
  };
  if (lastFrame.includes('event: error') || lastFrame.includes('"error"')) timing.error = lastFrame.slice(0, 300);
  return timing;
}

export interface OpenStream {
  /** False once the server ended or broke the stream. */
  isOpen(): boolean;
  close(): void;
}

/**
 * Opens one stream on its own connection and resolves once its first event arrived; the connection
 * stays open (later frames such as keep-alive pings are read and dropped) until close(). Only the
 * wait for the first event is bounded.
 */
export async function openIdleStream(origin: string, request: Omit<StreamRequest, 'stamps'>): Promise<OpenStream> {
  const client = new Client(origin, { pipelining: 1, headersTimeout: request.timeoutMs, bodyTimeout: 0 });
  const close = () => void client.destroy().catch(() => undefined);
  const giveUp = new AbortController();
  const timer = setTimeout(() => giveUp.abort(new Error('no first event in time')), request.timeoutMs);
  let open = true;
  try {
    const response = await client.request({
      path: request.path ?? '/',
      method: 'POST',
      headers: request.headers,
      body: request.body,
      signal: giveUp.signal,
    });
    const body = response.body;
    body.once('end', () => (open = false));
    body.on('error', () => (open = false));
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      const onData = (chunk: Buffer) => {
        seen += chunk.toString('utf8');
        if (!seen.includes('data:') || !seen.includes('\n\n')) return;
        body.off('data', onData);
        body.on('data', () => undefined);
        resolve();
      };
      body.on('data', onData);
      body.once('error', reject);
      body.once('end', () => reject(new Error('stream ended before its first event')));
    });
    return { isOpen: () => open, close };
  } catch (error) {
    close();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
