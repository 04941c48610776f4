export interface SseFrame {
  data: string;
  event?: string;
  /** What the frame's event shows, for the metrics (observability/facade-events.ts); never written. */
  shows?: { kind: string; state?: string };
  /** What the stream had relayed when it made the frame, told back once the frame is written (SseOptions.onWritten). */
  mark?: number;
}

const encoder = new TextEncoder();

/** One SSE event as text; a multi-line payload becomes several `data:` lines so no line break can end it early. */
export function frameText(frame: SseFrame): string {
  const event = frame.event ? `event: ${frame.event.replace(/[\r\n]/g, '')}\n` : '';
  // JSON text never holds a raw line break: the usual frame is one data line.
  const data = hasLineBreak(frame.data)
    ? frame.data
        .split(/\r\n|\r|\n/)
        .map((line) => `data: ${line}\n`)
        .join('')
    : `data: ${frame.data}\n`;
  return `${event}${data}\n`;
}

// includes, not a regular expression: this runs over every frame's whole text (about 8× faster).
const hasLineBreak = (text: string): boolean => text.includes('\n') || text.includes('\r');

/** One SSE event as UTF-8 bytes. */
export const encodeFrame = (frame: SseFrame): Uint8Array => encoder.encode(frameText(frame));

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  // no-cache plus X-Accel-Buffering stops nginx-style proxies from buffering the stream.
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
  connection: 'keep-alive',
};

type Pinged = (text: string) => void;

/**
 * One keepalive timer per interval for all open streams, not one per stream: an idle stream costs
 * a Set entry instead of a timer and its closures, and each tick formats its ping once. A stream's
 * first ping therefore comes up to one interval after it opened, not exactly one.
 */
const keepalives = new Map<number, { timer: NodeJS.Timeout; streams: Set<Pinged> }>();

/** Hands `stream` a `: ping` comment every `ms` until the returned function is called. */
export function keepAlive(ms: number, stream: Pinged): () => void {
  let ticker = keepalives.get(ms);
  if (!ticker) {
    const streams = new Set<Pinged>();
    const timer = setInterval(() => {
      const ping = `: ping ${new Date().toISOString()}\n\n`;
      for (const open of streams) open(ping);
    }, ms);
    timer.unref();
    ticker = { timer, streams };
    keepalives.set(ms, ticker);
  }
  const { streams, timer } = ticker;
  streams.add(stream);
  return () => {
    if (!streams.delete(stream) || streams.size > 0) return;
    clearInterval(timer);
    keepalives.delete(ms);
  };
}
