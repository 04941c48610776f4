import { createParser } from 'eventsource-parser';
import { contentCoding, createDecoder, type ContentCoding } from '../http/content-coding.js';
import { isRecord } from '../model/json.js';
import { relayedChunks } from './body-end.js';

/** The code of the JSON-RPC error envelope an SSE event's data holds, or undefined (a result, or no envelope). */
function errorCodeOf(data: string): number | undefined {
  // Only an event that names "error" is parsed: a result (nearly every event) is not read at all.
  if (!data.includes('"error"')) return undefined;
  try {
    const envelope = JSON.parse(data) as unknown;
    const error = isRecord(envelope) && envelope.jsonrpc === '2.0' ? envelope.error : undefined;
    return isRecord(error) && typeof error.code === 'number' ? error.code : undefined;
  } catch {
    return undefined;
  }
}

/** How a body's bytes are scanned as they pass: each chunk (`chunk`), then its end (`end`). */
interface Scan {
  chunk(bytes: Uint8Array): void;
  end(): void;
}

/**
 * The scan of a body in a content coding (gzip, deflate, br): the agent compressed its stream though the relay did not
 * ask it to (an agent, or a proxy in front of it, may; the caller is handed the bytes as they came). A copy of each
 * chunk is decoded for the scan only; `done` once the body ended and the decoder gave all it held. A copy that
 * cannot be decoded further (a stream cut mid-way, the relay's own frame after it, which is not compressed) is read
 * no further: what was found by then stands.
 */
function decodedScan(coding: ContentCoding, feed: (bytes: Uint8Array) => void, done: () => void): Scan {
  const decoder = createDecoder(coding);
  let broken = false;
  decoder.on('data', feed);
  decoder.on('error', () => (broken = true));
  return {
    chunk(bytes) {
      if (!broken) decoder.write(bytes);
    },
    end() {
      if (broken) return done();
      decoder.once('close', done);
      decoder.end();
    },
  };
}

/**
 * A relayed SSE answer (the agent's own events, bytes the gateway did not make) passed on chunk by chunk as it comes,
 * each chunk handed on before the next is asked for; `ended` resolves, when the body ends, fails or its reader cancels
 * it, to the code of the last JSON-RPC error event it carried (undefined: none): the error the stream ended with, which
 * its metrics count it by, as a unary answer's error is counted. A body in a content coding is scanned decoded, its
 * bytes handed on as they came; one in a coding the gateway cannot undo is not read (none).
 */
export function watchedErrorEvents(answer: Response): { answer: Response; ended: Promise<number | undefined> } {
  const coding = contentCoding(answer.headers.get('content-encoding'));
  if (!answer.body || coding === null) return { answer, ended: Promise.resolve(undefined) };
  let errorCode: number | undefined;
  let end: () => void = () => undefined;
  const ended = new Promise<number | undefined>((resolve) => (end = () => resolve(errorCode)));
  const parser = createParser({
    onEvent(event) {
      errorCode = errorCodeOf(event.data) ?? errorCode;
    },
  });
  const text = new TextDecoder();
  const feed = (bytes: Uint8Array): void => parser.feed(text.decode(bytes, { stream: true }));
  const scan = coding === undefined ? { chunk: feed, end } : decodedScan(coding, feed, end);
  const watched = relayedChunks(answer.body, scan);
  return { answer: new Response(watched, { status: answer.status, headers: answer.headers }), ended };
}
