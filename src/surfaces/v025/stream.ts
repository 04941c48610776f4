import { SteppedStage, type Step } from '../../core/stepped-stages.js';
import { toA2AError, type StreamResponse } from '../../model/index.js';
import { noteFacadeStreamShown } from '../../observability/facade-answer-log.js';
import type { V025StreamEvent, V025TaskStatus } from '../../protocol/v025/index.js';
import { jsonRpcText } from '../../protocol/jsonrpc-exact-ids.js';
import type { RequestLogFields } from '../shared/env.js';
import type { JsonRpcId } from '../shared/jsonrpc.js';
import { noteLogFields } from '../shared/log-fields.js';
import { sseResponse, type SseFrame, type SseOptions } from '../shared/sse.js';
import { openStream, STREAM_ACCEPTED_COMMENT, type OpenedStream } from '../shared/stream-open.js';
import type { V025FacadeDeps } from './deps.js';
import { withoutGatewayMetadata } from './caller-metadata.js';
import { toldInWords, v025ErrorBody } from './errors.js';
import { createTurnReply, replyEvents, type ReplyOptions } from './reply/index.js';
import { replyOptions } from './reply-options.js';
import type { UnwatchedTurn } from './recovery/unwatched-turns.js';

export interface V025StreamOptions {
  id: JsonRpcId;
  deps: V025FacadeDeps;
  /**
   * The request line's fields (`c.get('logFields')`), which the stream notes its task and its end on: not the Hono
   * context, which every open stream would keep whole (its request, response and a dozen closures).
   */
  logFields: RequestLogFields | undefined;
  /** The call's signal (portCall): aborted when the client goes away. */
  signal: AbortSignal;
  /** Aborts the upstream call (the client went away). */
  abort(): void;
  /** The stream is over, however it ended (idempotent). */
  onEnd?(): void;
  /** Its caller hung up (or a shutdown cut it): true when the turn goes on without it, not ended by `abort` (unwatched-turns.ts). */
  callerGone?(): boolean;
  /**
   * The turn, when its user may stop watching it while the agent goes on (unwatched-turns.ts): its caller hangs
   * up (or a shutdown cuts it), before or after its first event (told before onEnd), or its first event's bound
   * passes (told as the user reads it).
   */
  unwatched?: UnwatchedTurn;
  /** The reducer's options; default: the facade's for a turn without earlier artifacts. */
  reply?: ReplyOptions;
  /** How long the first event may take; default `upstream.first-event-timeout-ms`. */
  firstEventTimeoutMs?: number;
  /** A turn's failure before its reply began, as its user reads it when a shutdown cut it (watched-turn.ts WatchedTurn). */
  toldAtCut?(error: unknown): unknown;
}

/**
 * A 1.0 event stream (SendStreamingMessage, SubscribeToTask) as 0.2.5 SSE, every frame a JSON-RPC
 * response carrying the request's id, shaped by the reply reducer (reply/). A failure before the
 * first event is thrown (the dialect answers it as a one-frame stream, task-methods.ts); after it the
 * turn ends with a failed, final status-update. A client that goes away aborts the upstream call.
 */
export async function v025Stream(open: (onAccepted: () => void) => AsyncIterable<StreamResponse>, options: V025StreamOptions): Promise<Response> {
  const { id, deps, logFields, signal } = options;
  let ended = false;
  // The stream itself ended the upstream call (its first event failed or did not come in time), not its caller.
  let endedHere = false;
  const endUpstream = (): void => {
    if (!signal.aborted) endedHere = true;
    options.abort();
  };
  // The last status the caller was shown, noted for the `stream ended` line at the end (kept as its frame is made).
  let shownStatus: V025TaskStatus | undefined;
  const end = (): void => {
    if (ended) return;
    ended = true;
    noteFacadeStreamShown(logFields, shownStatus, () => reply.shown);
    // Its caller left (or a shutdown cut it), before its first event as after it: the message may be at the agent.
    if (signal.aborted && !endedHere) options.unwatched?.callerGone();
    options.onEnd?.();
  };
  // Before the turn's first event: what its caller was shown is what was written to them (turn-tracker.ts).
  const written = options.unwatched?.shownAsWritten();
  const turnReply = options.reply ?? replyOptions(deps);
  const reply = createTurnReply(turnReply);
  // Opened at the first event or, when the upstream accepted the call and stays quiet, at once with a
  // comment (then keep-alives), so a caller can tell a slow agent from a dead one.
  let head: OpenedStream<V025StreamEvent>;
  try {
    head = await openStream((onAccepted) => replyEvents(open(onAccepted), reply), {
      firstEventTimeoutMs: options.firstEventTimeoutMs ?? deps.options.firstEventTimeoutMs,
      abort: endUpstream,
      ...(options.unwatched ? { toldAtBound: options.unwatched.timedOut } : {}),
    });
  } catch (error) {
    end();
    throw options.toldAtCut ? options.toldAtCut(error) : error;
  }
  if (head.first) noteLogFields(logFields, taskRefOf(head.first));
  const rest = head.events[Symbol.asyncIterator]();
  const frame = (result: V025StreamEvent): SseFrame => {
    const data = jsonRpcText({ jsonrpc: '2.0', id, result: withoutGatewayMetadata(result) });
    const mark = written?.mark();
    if (result.kind !== 'task' && result.kind !== 'status-update') return { data, shows: { kind: result.kind }, mark };
    shownStatus = result.status;
    return { data, shows: { kind: result.kind, state: result.status.state }, mark };
  };
  const shownAsWritten: Pick<SseOptions, 'onWritten' | 'onLeftAtEnd'> = written
    ? {
        onWritten: ({ mark }) => mark !== undefined && written.wrote(mark),
        onLeftAtEnd: written.leftAtEnd,
      }
    : {};

  /**
   * A failure the SSE writer reports (a shutdown): a failed, final status-update, else an error frame, told in
   * the turn's language as the reason of a failed turn is (an agent that accepted the call and stayed quiet
   * past `upstream.first-event-timeout-ms` gets here with no turn to fail, told as `unwatched` tells it). The
   * error frame is an unnamed event like the facade's every error frame (errors.ts v025ErrorStream): a client
   * that listens to default events only would miss an `event: error`.
   */
  function failureFrames(error: unknown): SseFrame[] {
    const a2aError = toA2AError(error);
    noteLogFields(logFields, { errorCode: a2aError.code });
    const failed = reply.fail(a2aError.message);
    if (failed.length > 0) return failed.map(frame);
    const told = toldInWords(toA2AError(options.toldAtCut ? options.toldAtCut(a2aError) : a2aError), turnReply.words);
    return [{ data: jsonRpcText(v025ErrorBody(id, told, deps.profile)) }];
  }

  return sseResponse(new Frames(rest, frame, failureFrames, end), {
    keepaliveMs: deps.options.keepaliveMs,
    signal,
    onCancel: () => {
      if (!options.callerGone?.()) options.abort();
      // The frames may never have been read: reach the upstream iterator directly so the core
      // releases the context lane.
      void Promise.resolve(rest.return?.()).catch(() => undefined);
      end();
    },
    shutdown: deps.shutdown,
    onError: failureFrames,
    ...shownAsWritten,
    ...(head.quiet ? { comment: STREAM_ACCEPTED_COMMENT } : {}),
  });
}

/**
 * The stream's frames, each event's as it comes. Only what the reply reducer could not turn into a failed turn fails
 * here (no first event in time): its frames are written before the upstream call is ended, which the SSE writer would
 * take for the client leaving. The stream's end (`ended`) follows the return of its events, however it ended. A stage
 * (core/stepped-stages.ts): the SSE channel reads it, the reply and the layers below in one reaction per event.
 */
class Frames extends SteppedStage<V025StreamEvent, SseFrame> {
  constructor(
    private readonly events: AsyncIterator<V025StreamEvent>,
    private readonly frame: (event: V025StreamEvent) => SseFrame,
    private readonly failureFrames: (error: unknown) => SseFrame[],
    private readonly ended: () => void,
  ) {
    super();
  }

  protected open(): AsyncIterator<V025StreamEvent> {
    return this.events;
  }

  protected step(result: IteratorResult<V025StreamEvent>): Step<SseFrame> {
    if (result.done) return { items: [], end: true };
    try {
      return { items: [this.frame(result.value)] };
    } catch (error) {
      return this.recover(error);
    }
  }

  protected override recover(error: unknown): Step<SseFrame> {
    return { items: this.failureFrames(error), end: true };
  }

  protected override finish(): void {
    this.ended();
  }
}

/** The caller's task and context, for the request's log line. */
function taskRefOf(event: V025StreamEvent): { taskId?: string; contextId?: string } {
  if (event.kind === 'task') return { taskId: event.id, contextId: event.contextId };
  return { taskId: event.taskId, contextId: event.contextId };
}
