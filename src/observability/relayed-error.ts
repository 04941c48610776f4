import { A2AError } from '../model/index.js';
import { isRecord } from '../model/json.js';
import { sanitizeUpstreamText } from '../scrub-text.js';
import type { RequestLogFields } from '../surfaces/shared/env.js';
import { decodedText } from '../surfaces/v025/relay/content-decoding.js';
import { withoutUrlCredentials } from '../url-credentials.js';
import { isStream } from './body-end.js';

/** The most of a relayed answer read again for its error: an error envelope is far smaller; a larger body is a result. */
const MAX_ERROR_BYTES = 16 * 1024;

/** How much of the agent's words the request line keeps as the cause. */
const MAX_CAUSE_CHARS = 300;

/** The first `max` bytes of a copy of `answer`'s body, or undefined when it holds more (the copy is then let go). */
async function bytesUpTo(answer: Response, max: number): Promise<Buffer | undefined> {
  const reader = (answer.clone().body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return Buffer.concat(chunks, size);
      chunks.push(value);
      size += value.byteLength;
      if (size > max) return undefined;
    }
  } catch {
    // The body broke: the caller's copy fails alike, and that is told where it is read.
    return undefined;
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

/** The JSON-RPC error object `text` holds as an envelope's `error`, or undefined. */
function errorOf(text: string | undefined): { code: number; message: string } | undefined {
  // Only an answer that names "error" is parsed: a result (every message/send) is not read twice.
  if (text === undefined || !text.includes('"error"')) return undefined;
  try {
    const envelope = JSON.parse(text) as unknown;
    const error = isRecord(envelope) && envelope.jsonrpc === '2.0' ? envelope.error : undefined;
    if (!isRecord(error) || typeof error.code !== 'number') return undefined;
    return { code: error.code, message: typeof error.message === 'string' ? error.message : '' };
  } catch {
    return undefined;
  }
}

/**
 * What the request line of a relayed call says of the JSON-RPC error the agent answered it with (the relay hands it
 * on unread, under HTTP 200: relay-answer.ts), as a failed call's line says its own (shared/log-fields.ts
 * noteFailure): its code; for a failure not the caller's (a -32603 of the agent's), the agent's words, scrubbed of
 * paths and credentials as every agent text is, as the cause, so the line is at warn. Undefined for a result, a stream,
 * or a body too large to be an error.
 */
export async function relayedErrorFields(answer: Response): Promise<RequestLogFields | undefined> {
  if (answer.body === null || isStream(answer)) return undefined;
  const bytes = await bytesUpTo(answer, MAX_ERROR_BYTES);
  const error = bytes && errorOf(decodedText(bytes, answer.headers.get('content-encoding')));
  if (!error) return undefined;
  if (new A2AError(error.code, error.message).statusInfo.httpStatus < 500) return { errorCode: error.code };
  const said = withoutUrlCredentials(sanitizeUpstreamText(error.message)).slice(0, MAX_CAUSE_CHARS);
  return { errorCode: error.code, cause: `the agent answered error ${error.code}${said ? `: ${said}` : ''}` };
}
