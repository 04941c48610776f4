import type { Transformer } from 'node:stream/web';
import { createParser } from 'eventsource-parser';
import { decodedText, encodedCopy } from './content-decoding.js';
import { isRecord } from '../../../model/json.js';
import { isStream } from '../../../observability/body-end.js';

/**
 * What the facade relays past the core (passthrough.ts) is recorded as the caller's all the same:
 * once any surface takes credentials a task the registry does not know is not found (task-scope.ts),
 * so a relayed task must be known, or its own caller could not reach it again and another could.
 * Only its identity is kept; the agent stays the one that answers for it.
 */
export interface RelayedTask {
  id: string;
  contextId: string;
  /** Its 0.2.5 state when the answer carried one. */
  state?: string;
}

export type RecordRelayed = (task: RelayedTask) => Promise<void>;

/** The task a 0.2.5/0.3 result names: a Task by its id, an update event by its taskId. A Message names none. */
export function relayedTaskOf(result: unknown): RelayedTask | undefined {
  if (!isRecord(result)) return undefined;
  const id = result.kind === 'task' ? result.id : result.kind === 'status-update' || result.kind === 'artifact-update' ? result.taskId : undefined;
  const { contextId } = result;
  if (typeof id !== 'string' || id === '' || typeof contextId !== 'string' || contextId === '') return undefined;
  const state = isRecord(result.status) && typeof result.status.state === 'string' ? result.status.state : undefined;
  return state === undefined ? { id, contextId } : { id, contextId, state };
}

function resultOf(text: string): unknown {
  try {
    const envelope = JSON.parse(text) as unknown;
    return isRecord(envelope) ? envelope.result : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The agent's answer as it came, its task recorded first: a JSON answer (message/send) once read, an
 * SSE answer (message/stream) before the chunk that names the task goes on, so a caller that reads the
 * id can use it at once. Later chunks pass untouched and unparsed.
 */
export async function recordingAnswer(answer: Response, record: RecordRelayed): Promise<Response> {
  const init = { status: answer.status, headers: answer.headers };
  const encoding = answer.headers.get('content-encoding');
  if (isStream(answer)) {
    return answer.body ? new Response(answer.body.pipeThrough(recordingStream(record, encoding)), init) : answer;
  }
  // The bytes go back as they came (whatever their encoding); a decoded copy is read for the task.
  const bytes = await answer.arrayBuffer();
  const text = decodedText(new Uint8Array(bytes), encoding);
  const task = text === undefined ? undefined : relayedTaskOf(resultOf(text));
  if (task) await record(task);
  return new Response(bytes, init);
}

function recordingStream(record: RecordRelayed, encoding: string | null): TransformStream<Uint8Array, Uint8Array> {
  let found: RelayedTask | undefined;
  let recorded = false;
  const decoder = new TextDecoder();
  const parser = createParser({
    onEvent(message) {
      found ??= relayedTaskOf(resultOf(message.data));
    },
  });
  const copy = encodedCopy(encoding);
  // `cancel` is in the streams standard and in Node 20's TransformStream, not yet in TypeScript's lib.
  const transformer: Transformer<Uint8Array, Uint8Array> & { cancel(): void } = {
    async transform(chunk, controller) {
      if (!recorded) {
        const plain = copy ? await copy.decode(chunk) : chunk;
        if (plain) parser.feed(decoder.decode(plain, { stream: true }));
        if (found) {
          recorded = true;
          copy?.close();
          await record(found);
        }
      }
      controller.enqueue(chunk);
    },
    flush: () => copy?.close(),
    // The caller left before the end: the decoder's native memory goes now, not at a later GC.
    cancel: () => copy?.close(),
  };
  return new TransformStream(transformer);
}
