import { createParser } from 'eventsource-parser';

export interface SseMessage {
  event?: string;
  data: string;
  id?: string;
}

/**
 * Server-sent events of a response body, one message per complete frame, yielded as soon as the
 * frame's blank line arrives (never batched behind later chunks). Comments (`: ping`) are skipped.
 * A last frame that the server ended without its blank line is still delivered when the body ends:
 * some servers omit it and a reader that waits for it loses the final event (a2a-python#1213).
 */
export async function* readSse(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseMessage> {
  const ready: SseMessage[] = [];
  const parser = createParser({
    onEvent(message) {
      const out: SseMessage = { data: message.data };
      if (message.event !== undefined) out.event = message.event;
      if (message.id !== undefined) out.id = message.id;
      ready.push(out);
    },
  });
  // Streaming decode: a multi-byte character may be split across two chunks.
  const decoder = new TextDecoder('utf-8');

  for await (const chunk of body) {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    while (ready.length > 0) yield ready.shift() as SseMessage;
  }

  // End of body: terminate a pending line and dispatch a pending frame.
  parser.feed(`${decoder.decode()}\n\n`);
  while (ready.length > 0) yield ready.shift() as SseMessage;
}
