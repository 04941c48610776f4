import { setTimeout as sleep } from 'node:timers/promises';
import type { CallContext } from '../../core/agent-port.js';
import {
  withFields,
  A2AError,
  GATEWAY_FAILURES,
  eventTaskRef,
  eventTaskState,
  isActiveState,
  type Artifact,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
  type TaskState,
} from '../../model/index.js';
import { joinText } from '../../translate/index.js';
import type { V025FacadeDeps } from './deps.js';
import { restCursor, restEvents, type RestCursor, type TurnSoFar } from './turn-rest.js';

/** How often the task is read while it still works: soon after the break, then less often. */
const POLL_MS = [250, 500, 1000, 2000];
/** GetTask failures in a row after which the rest is given up (the agent is gone, not blinking). */
const MAX_FAILED_READS = 3;

/**
 * A stream that broke off, rather than an error the agent reported (which is its word on the turn): the
 * connection lost or gone quiet past the stream's bound, as the upstream clients tell it.
 */
const brokeOff = (error: unknown): boolean =>
  !(error instanceof A2AError) || error.message === GATEWAY_FAILURES.upstreamUnavailable || error.message === GATEWAY_FAILURES.upstreamTimedOut;

interface Reader {
  getTask(taskId: string): Promise<Task>;
  /** The turn's signal: its time limit, or its caller leaving, ends the reading too. */
  signal: AbortSignal;
  /** How long after the break the task may be read (`upstream.request-timeout-ms`; 0: as long as the turn lasts). */
  boundMs: number;
  earlierArtifacts?: readonly Artifact[];
}

/**
 * A turn's SendStreamingMessage, whose rest is recovered when its stream breaks off before the turn ended
 * (the connection cut, a proxy that closed an idle stream while a tool ran): the agent goes on with the turn
 * regardless, so the facade reads the task until it no longer works and shows what the agent said after the
 * break, as if the stream had not broken (turn-rest.ts). One path for message/send and message/stream, which
 * read the same events. `previous`: the task the turn continues, as it was before.
 */
export function recoverableTurn(request: SendMessageRequest, ctx: CallContext, deps: V025FacadeDeps, previous?: Task): AsyncIterable<StreamResponse> {
  const before = previous && previous.id === request.message.taskId ? previous : undefined;
  const reader: Reader = {
    getTask: (id) => deps.port.getTask({ id }, ctx),
    signal: ctx.signal,
    boundMs: deps.options.requestTimeoutMs,
    ...(before?.artifacts ? { earlierArtifacts: before.artifacts } : {}),
  };
  const turn = { sent: request.message, ...(before ? { previous: before } : {}) };
  return withRecoveredRest(deps.port.sendStreamingMessage(request, ctx), turn, reader);
}

/**
 * The stream's events as they come; when it fails or ends while the task still works (after an event named
 * it), the rest read from the task. When that fails too, the turn ends as it would have without it: the
 * stream's error is thrown, a stream that just ended ends (the reply says it broke off).
 */
async function* withRecoveredRest(
  source: AsyncIterable<StreamResponse>,
  turn: Omit<TurnSoFar, 'passed'>,
  reader: Reader,
): AsyncGenerator<StreamResponse> {
  const upstream = source[Symbol.asyncIterator]();
  // The messages themselves: their text is only needed if the stream breaks, so none is joined per event.
  const passed: Message[] = [];
  const passedFiles: string[] = [];
  let taskId: string | undefined;
  let state: TaskState | undefined;
  const resumable = (): boolean => taskId !== undefined && state !== undefined && isActiveState(state) && !reader.signal.aborted;
  let broke: { error?: unknown };
  try {
    for (;;) {
      let next: IteratorResult<StreamResponse>;
      try {
        next = await upstream.next();
      } catch (error) {
        if (!resumable() || !brokeOff(error)) throw error;
        broke = { error };
        break;
      }
      if (next.done) {
        if (!resumable()) return;
        broke = {};
        break;
      }
      const event = next.value;
      taskId = eventTaskRef(event).taskId || taskId;
      state = eventTaskState(event) ?? state;
      const message = 'statusUpdate' in event ? event.statusUpdate.status.message : undefined;
      if (message?.role === 'ROLE_AGENT') passed.push(message);
      if ('artifactUpdate' in event) passedFiles.push(event.artifactUpdate.artifact.artifactId);
      yield event;
    }
  } finally {
    await Promise.resolve(upstream.return?.()).catch(() => undefined);
  }
  const ended = yield* restOfTurn(
    taskId as string,
    withFields(turn, { passed: passed.map((message) => joinText(message.parts)), passedFiles }),
    reader,
  );
  // The turn's own time limit ended the reading: that is why it failed, as it would be without the break.
  if (!ended && reader.signal.aborted) throw reader.signal.reason;
  if (!ended && 'error' in broke) throw broke.error;
}

/** The rest of the turn, read from the task until it no longer works, within the bound; whether it came to the turn's end. */
async function* restOfTurn(taskId: string, turn: TurnSoFar, reader: Reader): AsyncGenerator<StreamResponse, boolean> {
  const deadline = reader.boundMs > 0 ? Date.now() + reader.boundMs : Infinity;
  let cursor: RestCursor | undefined;
  let failed = 0;
  for (let read = 0; ; read++) {
    let task: Task | undefined;
    try {
      task = await reader.getTask(taskId);
      failed = 0;
    } catch {
      if (reader.signal.aborted || ++failed >= MAX_FAILED_READS) return false;
    }
    if (task) {
      cursor ??= restCursor(task, turn);
      const rest = restEvents(task, cursor, turn, reader.earlierArtifacts);
      cursor = rest.cursor;
      yield* rest.events;
      if (rest.ended) return true;
    }
    const wait = POLL_MS[Math.min(read, POLL_MS.length - 1)] as number;
    if (Date.now() + wait > deadline) return false;
    try {
      await sleep(wait, undefined, { signal: reader.signal });
    } catch {
      return false;
    }
  }
}
