import type { Context } from 'hono';
import {
  A2AError,
  eventTaskRef,
  isActiveState,
  toA2AError,
  type StreamResponse,
  type TaskState,
} from '../../model/index.js';
import type { V025StreamEvent } from '../../protocol/v025/index.js';
import { createV1ToV025StreamTranslator } from '../../translate/index.js';
import type { GatewayEnv } from '../shared/env.js';
import type { JsonRpcId } from '../shared/jsonrpc.js';
import { noteLog } from '../shared/log-fields.js';
import { pullFirst, sseResponse, type SseFrame } from '../shared/sse.js';
import type { V025FacadeDeps } from './deps.js';
import { v025ErrorBody } from './errors.js';

export interface V025StreamOptions {
  id: JsonRpcId;
  deps: V025FacadeDeps;
  c: Context<GatewayEnv>;
  /** The call's signal (portCall): aborted when the client goes away. */
  signal: AbortSignal;
  /** Aborts the upstream call (the client went away). */
  abort(): void;
  /** The stream is over, however it ended (idempotent). */
  onEnd?(): void;
}

const ENDED_EARLY = 'The upstream agent ended the stream before the turn finished';

function stateOf(event: StreamResponse): TaskState | undefined {
  if ('statusUpdate' in event) return event.statusUpdate.status.state;
  if ('task' in event) return event.task.status.state;
  return undefined;
}

/**
 * A 1.0 event stream (SendStreamingMessage, SubscribeToTask) as 0.2.5 SSE, every frame a JSON-RPC
 * response carrying the request's id, shaped by createV1ToV025StreamTranslator. A failure before the
 * first event is thrown (the caller answers a plain JSON-RPC error); after it, the upstream's failure
 * (its message is already sanitized), or an upstream that stops mid-turn, ends the stream with a
 * failed, final status-update. A client that goes away aborts the upstream call.
 */
export async function v025Stream(events: AsyncIterable<StreamResponse>, options: V025StreamOptions): Promise<Response> {
  const { id, deps, c } = options;
  const { config, profile } = deps;
  const bailian = config.bailian;
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    options.onEnd?.();
  };

  let head: Awaited<ReturnType<typeof pullFirst<StreamResponse>>>;
  try {
    head = await pullFirst(events);
    if (head.first === undefined) throw A2AError.invalidAgentResponse('The upstream agent ended the stream without an event');
  } catch (error) {
    end();
    throw error;
  }
  noteLog(c, eventTaskRef(head.first));
  const rest = head.rest[Symbol.asyncIterator]();

  const translator = createV1ToV025StreamTranslator({
    profile,
    upstreamMetadata: bailian['upstream-metadata'],
    deviceCommands: { metadataKey: bailian['extension-metadata-key'] },
  });
  const frame = (result: V025StreamEvent): SseFrame => ({ data: JSON.stringify({ jsonrpc: '2.0', id, result }) });
  const { signal } = options;

  /** A failure after the first event: a failed, final status-update (Bailian waits for `final: true`), else an error frame. */
  function failureFrames(error: unknown, event?: string): SseFrame[] {
    const a2aError = toA2AError(error);
    noteLog(c, { errorCode: a2aError.code });
    const failed = translator.fail(a2aError.message);
    if (failed.length > 0) return failed.map(frame);
    return [{ ...(event ? { event } : {}), data: JSON.stringify(v025ErrorBody(id, a2aError, profile)) }];
  }

  async function* frames(): AsyncGenerator<SseFrame> {
    let lastState: TaskState | undefined;
    try {
      for (let next = await rest.next(); !next.done; next = await rest.next()) {
        lastState = stateOf(next.value) ?? lastState;
        yield* translator.push(next.value).map(frame);
        // The caller's stream is over (e.g. a state the profile makes final): stop the upstream too.
        if (translator.done) break;
      }
      if (!translator.done) {
        const closing = lastState !== undefined && isActiveState(lastState) ? translator.fail(ENDED_EARLY) : translator.end();
        yield* closing.map(frame);
      }
    } catch (error) {
      // Gone, or already ended by the SSE writer (a shutdown): nobody reads what would come next.
      if (signal.aborted || translator.done) return;
      yield* failureFrames(error);
    } finally {
      await rest.return?.().catch(() => undefined);
      end();
    }
  }

  return sseResponse(frames(), {
    keepaliveMs: config['keepalive-ms'],
    signal,
    onCancel: () => {
      options.abort();
      // The frames generator may never have started: reach the upstream iterator directly so the core
      // releases the context lane.
      void Promise.resolve(rest.return?.()).catch(() => undefined);
      end();
    },
    shutdown: deps.shutdown,
    onError: (error) => failureFrames(error, 'error'),
  });
}
