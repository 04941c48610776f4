import { createParser } from 'eventsource-parser';
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

/**
 * A relayed SSE answer (the agent's own events, bytes the gateway did not make) passed on chunk by chunk as it comes,
 * each chunk handed on before the next is asked for; `ended` resolves, when the body ends, fails or its reader cancels
 * it, to the code of the last JSON-RPC error event it carried (undefined: none): the error the stream ended with, which
 * its metrics count it by, as a unary answer's error is counted. A body in a content coding is not read (none).
 */
export function watchedErrorEvents(answer: Response): { answer: Response; ended: Promise<number | undefined> } {
  if (!answer.body || answer.headers.has('content-encoding')) return { answer, ended: Promise.resolve(undefined) };
  let errorCode: number | undefined;
  let end: () => void = () => undefined;
  const ended = new Promise<number | undefined>((resolve) => (end = () => resolve(errorCode)));
  const parser = createParser({
    onEvent(event) {
      errorCode = errorCodeOf(event.data) ?? errorCode;
    },
  });
  const decoder = new TextDecoder();
  const watched = relayedChunks(answer.body, {
    chunk: (bytes) => parser.feed(decoder.decode(bytes, { stream: true })),
    end,
  });
  return { answer: new Response(watched, { status: answer.status, headers: answer.headers }), ended };
}
