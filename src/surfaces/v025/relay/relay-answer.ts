import { A2AError } from '../../../model/index.js';
import { contentCoding } from '../../../http/content-coding.js';
import { isStream } from '../../../observability/body-end.js';
import { unsupportedEncoding } from '../../../upstream/decoded-body.js';
import { isJsonRpcResponse, notJsonRpcAnswer } from '../../../upstream/jsonrpc-client.js';
import { fromTransportError } from '../../../upstream/upstream-errors.js';
import { decodedText } from './content-decoding.js';
import { oneFrameStream, STREAMING_METHODS } from '../errors.js';

/**
 * What the facade sends back of a relayed agent's answer (passthrough.ts). The caller speaks 0.2.5, so
 * it must get 0.2.5 back: a JSON-RPC envelope for a unary method, SSE for a streaming one. An answer in
 * no protocol's shape (a proxy's HTML 502, an empty 500, JSON that is not JSON-RPC) would only make the
 * official client throw "HTTP error ..." or a parse error, so it becomes the facade's own -32006, worded
 * as the gateway's JSON-RPC client words it and thrown, for the edge to answer in the method's shape
 * with the caller's id. The agent's body is never repeated: it may hold a stack trace or host names.
 *
 * - a streaming method: SSE with a 2xx status flows unread; a JSON-RPC envelope (error or result) is one
 *   SSE frame holding it, as the facade's own refusals are (errors.ts), so the client gets the agent's
 *   words, or its Message/Task as the one event, with the agent's Retry-After and activated extensions;
 *   anything else is -32006.
 * - any other method, non-2xx: the agent's envelope goes through byte for byte but with HTTP 200, as the
 *   facade's own errors go (errors.ts: the a2a-js 0.2.5 client loses the words of a non-2xx answer);
 *   anything else is -32006 naming the status.
 * - any other method, 2xx: byte for byte, unless the body is plainly no envelope (then -32006). A body
 *   over MAX_READ_BYTES goes through whole and unchecked.
 */

/** Larger than any refusal and most results; the most the facade reads of an answer it must judge. */
const MAX_READ_BYTES = 64 * 1024;

const UTF8_BOM = [0xef, 0xbb, 0xbf];
const OPEN_BRACE = 0x7b;

const isJsonSpace = (byte: number | undefined): boolean => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/** The first byte of a JSON text (past a UTF-8 BOM and JSON whitespace), undefined while there is none yet. */
export function openingByte(bytes: Uint8Array): number | undefined {
  let at = 0;
  while (at < UTF8_BOM.length && at < bytes.length && bytes[at] === UTF8_BOM[at]) at++;
  // The start of a BOM may still become one.
  if (at === bytes.length && at < UTF8_BOM.length) return undefined;
  if (at < UTF8_BOM.length) at = 0;
  while (at < bytes.length && isJsonSpace(bytes[at])) at++;
  return bytes[at];
}

const JSONRPC_KEY = Buffer.from('"jsonrpc"');

/**
 * The hot path's check of a whole 2xx answer: an object that names `jsonrpc` passes on a byte scan,
 * without building the object a parse would (every message/send answer takes this path). Only what fails
 * it is parsed, so no envelope is ever refused; an object that names `jsonrpc` and is still no envelope
 * goes through, as every answer did before.
 */
export function looksLikeEnvelope(bytes: Buffer): boolean {
  return openingByte(bytes) === OPEN_BRACE && bytes.includes(JSONRPC_KEY);
}

/** The JSON-RPC envelope `text` holds, or undefined. */
export function envelopeOf(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return isJsonRpcResponse(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

type Reader = ReadableStreamDefaultReader<Uint8Array>;

interface Head {
  chunks: Uint8Array[];
  size: number;
  /** Why the body was read no further, its rest then in `rest`. */
  cut?: 'not-an-object' | 'too-large';
  rest?: Reader;
}

/**
 * A body's first bytes, up to just past MAX_READ_BYTES, or fewer once a plain body opens with anything
 * but `{`: such a body is no envelope, and a page or a stream under another type need not be read to
 * its end (a stream might not end before the turn does).
 */
async function readHead(body: ReadableStream<Uint8Array> | null, plain: boolean): Promise<Head> {
  const head: Head = { chunks: [], size: 0 };
  if (!body) return head;
  const reader = body.getReader();
  let opening: number | undefined;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return head;
    head.chunks.push(value);
    head.size += value.byteLength;
    if (plain && opening === undefined) opening = openingByte(head.chunks.length === 1 ? value : Buffer.concat(head.chunks, head.size));
    head.cut = opening !== undefined && opening !== OPEN_BRACE ? 'not-an-object' : head.size > MAX_READ_BYTES ? 'too-large' : undefined;
    if (head.cut) {
      head.rest = reader;
      return head;
    }
  }
}

/** The chunks already read, then the rest as it comes: a body that goes on whole after a look at its head. */
function rejoined(chunks: Uint8Array[], rest: Reader): ReadableStream<Uint8Array> {
  const read = chunks.values();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const held = read.next();
        if (!held.done) {
          controller.enqueue(held.value);
          return;
        }
        try {
          const next = await rest.read();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        } catch (error) {
          controller.error(error);
        }
      },
      cancel: (reason) => rest.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

/** What the agent says about its answer rather than about its body: kept when the body is framed anew. */
const FRAMED_KEEPS = ['retry-after', 'x-a2a-extensions'];

/** The agent's `retry-after` and activated extensions, for its envelope sent on as one SSE frame. */
function keptHeaders(headers: Headers): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of FRAMED_KEEPS) {
    const value = headers.get(name);
    if (value !== null) kept[name] = value;
  }
  return kept;
}

function failureError(failure: 'too-large' | 'coding' | 'not-json-rpc', status: number): A2AError {
  // A status that is not 2xx says more than what the body lacked.
  if (status < 200 || status >= 300 || failure === 'not-json-rpc') return notJsonRpcAnswer(status);
  return failure === 'coding'
    ? unsupportedEncoding()
    : A2AError.invalidAgentResponse('The upstream agent returned a response that is not a stream and too large to relay as one event');
}

async function judgedAnswer(method: string, answer: Response): Promise<Response> {
  const { status, headers } = answer;
  const ok = status >= 200 && status < 300;
  const streaming = STREAMING_METHODS.has(method);
  if (streaming && ok && isStream(answer)) return answer;
  // A 2xx answer to a unary method is the agent's result as it wrote it: checked cheaply, never rewritten.
  const unary2xx = ok && !streaming;
  const encoding = headers.get('content-encoding');
  const coding = contentCoding(encoding);
  const head = await readHead(answer.body, coding === undefined);
  if (head.rest && head.cut === 'too-large' && unary2xx) return new Response(rejoined(head.chunks, head.rest), { status, headers });
  if (head.rest) {
    await head.rest.cancel().catch(() => undefined);
    throw failureError(head.cut === 'too-large' ? 'too-large' : 'not-json-rpc', status);
  }
  const bytes = Buffer.concat(head.chunks, head.size);
  if (unary2xx) {
    // A coding the gateway cannot undo is not judged: the caller may read it.
    if (coding !== null && !(coding === undefined && looksLikeEnvelope(bytes)) && !envelopeOf(decodedText(bytes, encoding))) {
      throw notJsonRpcAnswer(status);
    }
    return new Response(bytes, { status, headers });
  }
  const text = decodedText(bytes, encoding);
  const envelope = envelopeOf(text);
  if (!envelope) throw failureError(text === undefined ? 'coding' : 'not-json-rpc', status);
  return streaming ? oneFrameStream(envelope, keptHeaders(headers)) : new Response(bytes, { status: 200, headers });
}

/**
 * The agent's answer to a relayed `method` as the facade sends it on, or the A2AError that replaces an
 * answer in no protocol's shape. A body that breaks while it is read is a transport failure, as for
 * any upstream call; `signal` tells the caller's leaving from the agent's.
 */
export async function relayedAnswer(method: string, answer: Response, signal: AbortSignal): Promise<Response> {
  try {
    return await judgedAnswer(method, answer);
  } catch (error) {
    throw error instanceof A2AError ? error : fromTransportError(error, { caller: signal });
  }
}
