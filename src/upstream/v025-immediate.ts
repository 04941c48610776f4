import type { CallContext } from '../core/agent-port.js';
import { A2AError, type SendMessageResponse, type StreamResponse, type Task } from '../model/index.js';
import { fromTransportError } from './upstream-errors.js';
import { untilAborted } from './v1-client.js';

/**
 * A 1.0 caller's SendMessage with `returnImmediately`, to an a2a-js 0.2.5 agent that streams. Its non-blocking
 * `message/send` answers with the first Task or Message the executor publishes and fails the call (-32603) when
 * none comes: an executor following the SDK's samples publishes the Task only when it opens one, so each answer
 * to its question (input-required) failed, though the agent ran it. The turn is streamed instead: its first event
 * answers the caller, and the rest is read on, off the caller's call, to the turn's end, so an agent that stops a
 * turn whose reader left runs it through. The gateway learns how it ended as for any turn answered early (GetTask,
 * a push follow, a list asking about tasks last seen running).
 */
export interface DetachedTurns {
  /**
   * The first event of the stream `open` starts under a signal of its own (the caller leaving does not end
   * the turn; close() does), waited for while the caller stays. A stream silent for `boundMs` (0: no bound)
   * is dropped, the wait failing as a timed-out call.
   */
  firstEvent(open: (signal: AbortSignal) => AsyncIterable<StreamResponse>, ctx: CallContext, boundMs: number): Promise<StreamResponse>;
  /** Ends every turn still read (the gateway stops), once none runs. */
  close(): Promise<void>;
}

export function createDetachedTurns(): DetachedTurns {
  const turns = new Set<AbortController>();
  const reads = new Set<Promise<void>>();
  let closed = false;

  /** The stream after its first event, to its end; how it ended is not the caller's any more. */
  async function readOn(events: AsyncIterator<StreamResponse>): Promise<void> {
    try {
      while (!(await events.next()).done);
    } catch {
      // Broken off or refused: the task as the agent keeps it tells the rest.
    }
  }

  return {
    async firstEvent(open, ctx, boundMs) {
      const turn = new AbortController();
      if (closed) turn.abort(A2AError.shuttingDown());
      // Also when the caller has left: a stream that never speaks is not held on to.
      const unanswered = boundMs > 0 ? setTimeout(() => turn.abort(A2AError.upstreamTimedOut()), boundMs) : undefined;
      const events = open(turn.signal)[Symbol.asyncIterator]();
      const first = events.next();
      turns.add(turn);
      const read = first
        .then(
          (opened) => {
            clearTimeout(unanswered);
            return opened.done ? undefined : readOn(events);
          },
          () => clearTimeout(unanswered),
        )
        .finally(() => {
          turns.delete(turn);
          reads.delete(read);
        });
      reads.add(read);
      try {
        const opened = await untilAborted(first, ctx.signal);
        if (opened.done) throw A2AError.invalidAgentResponse('The upstream agent ended the stream without an event');
        return opened.value;
      } catch (error) {
        throw fromTransportError(error, { caller: ctx.signal });
      }
    },
    async close() {
      closed = true;
      for (const turn of turns) turn.abort(A2AError.shuttingDown());
      await Promise.all(reads);
    },
  };
}

/**
 * A turn's first event as a SendMessage answer. A stream that opens with a status or artifact update (a 0.2.5
 * agent going on with its task publishes no Task) opens with a Task of the ids and that status alone
 * (createV025ToV1StreamTranslator): the answer is the task as the agent then keeps it (`getTask`: its
 * history and artifacts), or that Task when the agent cannot say.
 */
export async function answerOfFirstEvent(first: StreamResponse, getTask: (taskId: string) => Promise<Task>): Promise<SendMessageResponse> {
  if ('message' in first) return { message: first.message };
  if (!('task' in first)) throw A2AError.invalidAgentResponse('The upstream agent opened the stream with neither a Task nor a Message');
  if (first.task.history !== undefined) return { task: first.task };
  try {
    return { task: await getTask(first.task.id) };
  } catch {
    return { task: first.task };
  }
}
