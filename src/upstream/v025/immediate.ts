import type { UpstreamConfig } from '../../config/schema.js';
import type { CallContext } from '../../core/agent-port.js';
import {
  A2AError,
  GATEWAY_FAILURES,
  withFields,
  type SendMessageRequest,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
} from '../../model/index.js';
import { throttledWarnings, type WarningLogger } from '../../throttled-warnings.js';
import { fromTransportError } from '../upstream-errors.js';
import { untilAborted } from '../v1/client.js';
import { refusedToStreamFollowUp } from './unstreamable-follow-up.js';

/** Turns read past their callers at once when `upstream.connections` sets no cap: each holds a connection to the agent. */
export const DETACHED_READS_UNCAPPED = 100;

/**
 * How many turns may be read past their callers at once. Each holds one of the pool's connections to its end,
 * so under a cap of `connections` at most half of them: the rest stay free for the calls a caller waits on
 * (GetTask, a blocking send), which would otherwise queue until those turns end. Never none: an answer to the
 * agent's question finds no other way through (DetachedTurns), so with one connection that one is shared.
 */
export function detachedReadLimit(connections: number | undefined): number {
  return connections ? Math.max(1, Math.floor(connections / 2)) : DETACHED_READS_UNCAPPED;
}

/**
 * A 1.0 caller's SendMessage with `returnImmediately`, to an a2a-js 0.2.5 agent that streams (whatever version its
 * card says: the SDK serves any card). Its non-blocking
 * `message/send` answers with the first Task or Message the executor publishes and fails the call (-32603) when
 * none comes: an executor following the SDK's samples publishes the Task only when it opens one, so each answer
 * to its question (input-required) failed, though the agent ran it, and a caller that retried ran it twice. The
 * turn is streamed instead: its first event answers the caller, and the rest is read on, off the caller's call, to
 * the turn's end, so an agent that stops a turn whose reader left runs it through. The rest goes through what the
 * gateway adds to a turn's stream (CallContext.readOn, core/read-on.ts), so the turn ends in the record with it. Such reads
 * are counted, not given a pool of their own: a second pool would open more connections than
 * `upstream.connections` allows the agent, and one at its limit queues a request without a bound. Past the count
 * a new task goes as before, a non-blocking `message/send` (the SDK publishes its Task); a message that goes on
 * with a task has no such way, and waits for a read to end.
 *
 * A 0.3 agent over HTTP+JSON (upstream/v03/rest-client.ts) takes the same way (createTurnsAnsweredEarly): the rest of a turn
 * its non-blocking send answered early was read by nothing, so a turn answered with a Message of its task (a2a-js
 * 1.x keeps that task working in its store) held its context for good.
 */
export interface DetachedTurns {
  /**
   * The first event of the stream `open` starts under a signal of its own (the caller leaving does not end
   * the turn; close() does), waited for while the caller stays. When `limit` turns are read already: undefined,
   * with nothing opened, or with `waitForRoom` the stream opened once a read ends, first come first served.
   * The wait and then the whole read are each bounded by `boundMs` (0: no bound), as a blocking call of the
   * turn would be: a wait that long fails as a timed-out call, the message unsent; a stream still silent then
   * fails the same way, one still talking is hung up.
   */
  firstEvent(
    open: (signal: AbortSignal) => AsyncIterable<StreamResponse>,
    ctx: CallContext,
    turn: DetachedTurnOptions,
  ): Promise<StreamResponse | undefined>;
  /** Ends every turn still read and every wait for room (the gateway stops), once none runs. */
  close(): Promise<void>;
}

export interface DetachedTurnOptions {
  /** `upstream.request-timeout-ms`: bounds the wait for room, then the read (0: neither). */
  boundMs: number;
  /** Wait for room rather than have no stream opened: the turn has no other way through. */
  waitForRoom: boolean;
}

export interface DetachedTurnsOptions {
  /** Turns read at once (detachedReadLimit). */
  limit: number;
  /** A turn found no room: the operator is told (throttled), as the caller gets a non-blocking send or waits. */
  onFull(limit: number): void;
}

/** A caller waiting for a read to end: `enter` hands it that read's place, `refuse` ends its wait. */
interface Waiter {
  enter(): void;
  refuse(failure: A2AError): void;
}

const noRoomWithin = (ms: number): A2AError =>
  A2AError.upstreamTimedOut(
    `${GATEWAY_FAILURES.upstreamTimedOut}: the turns read from the agent held its connections for ${ms} ms; the message was not sent`,
  );

export function createDetachedTurns({ limit, onFull }: DetachedTurnsOptions): DetachedTurns {
  const turns = new Set<AbortController>();
  const reads = new Set<Promise<void>>();
  /** In the order they came (a Set keeps it); none while a place is free, as an ending read hands its place on. */
  const waiting = new Set<Waiter>();
  let held = 0;
  let closed = false;

  /** A read ended: its place goes to the first caller waiting, or is free again. */
  function handOn(): void {
    const [next] = waiting;
    if (!next) held--;
    else next.enter();
  }

  function waitForPlace(ctx: CallContext, boundMs: number): Promise<void> {
    const { signal } = ctx;
    if (closed) return Promise.reject(A2AError.shuttingDown());
    if (signal.aborted) return Promise.reject(fromTransportError(signal.reason, { caller: signal }));
    return new Promise<void>((resolve, reject) => {
      const leave = (): void => {
        waiting.delete(waiter);
        clearTimeout(bound);
        signal.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        enter: () => (leave(), resolve()),
        refuse: (failure) => (leave(), reject(failure)),
      };
      const onAbort = (): void => waiter.refuse(fromTransportError(signal.reason, { caller: signal }));
      const bound = boundMs > 0 ? setTimeout(() => waiter.refuse(noRoomWithin(boundMs)), boundMs) : undefined;
      signal.addEventListener('abort', onAbort, { once: true });
      waiting.add(waiter);
    });
  }

  /**
   * The stream after its first event, to its end, through what the gateway adds to it (CallContext.readOn: the
   * record folds it, so the turn ends there as a streamed one does); how it ended is not the caller's any more.
   */
  async function readOn(events: AsyncIterator<StreamResponse>, ctx: CallContext): Promise<void> {
    const rest: AsyncIterable<StreamResponse> = { [Symbol.asyncIterator]: () => events };
    const read = (ctx.readOn?.(rest) ?? rest)[Symbol.asyncIterator]();
    try {
      while (!(await read.next()).done);
    } catch {
      // Broken off or refused: what read it has recorded how.
    }
  }

  return {
    async firstEvent(open, ctx, { boundMs, waitForRoom }) {
      if (held < limit) held++;
      else {
        onFull(limit);
        if (!waitForRoom) return undefined;
        await waitForPlace(ctx, boundMs);
      }
      const turn = new AbortController();
      if (closed) turn.abort(A2AError.shuttingDown());
      // Also when the caller has left: a stream that never ends (an agent sending keep-alives) is not held on to.
      const bound = boundMs > 0 ? setTimeout(() => turn.abort(A2AError.upstreamTimedOut()), boundMs) : undefined;
      const events = open(turn.signal)[Symbol.asyncIterator]();
      const first = events.next();
      turns.add(turn);
      const read = first
        .then(
          (opened) => (opened.done ? undefined : readOn(events, ctx)),
          () => undefined,
        )
        .finally(() => {
          clearTimeout(bound);
          turns.delete(turn);
          reads.delete(read);
          handOn();
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
      for (const waiter of waiting) waiter.refuse(A2AError.shuttingDown());
      for (const turn of turns) turn.abort(A2AError.shuttingDown());
      await Promise.all(reads);
    },
  };
}

/**
 * A turn's first event as a SendMessage answer. A stream that opens with a status or artifact update (a 0.2.5
 * agent going on with its task publishes no Task) opens with a Task of the ids, SUBMITTED
 * (createV025ToV1StreamTranslator, as a native 1.0 agent opens a turn): the answer is the task as the agent then keeps it (`getTask`: its
 * history and artifacts), or that Task when the agent cannot say, or cannot be asked (no `getTask`: the read
 * holds the pool's only connection, and the ask would wait for the turn's end).
 */
export async function answerOfFirstEvent(
  first: StreamResponse,
  getTask: ((taskId: string) => Promise<Task>) | undefined,
): Promise<SendMessageResponse> {
  if ('message' in first) return { message: first.message };
  if (!('task' in first)) throw A2AError.invalidAgentResponse('The upstream agent opened the stream with neither a Task nor a Message');
  if (first.task.history !== undefined || !getTask) return { task: first.task };
  try {
    return { task: await getTask(first.task.id) };
  } catch {
    return { task: first.task };
  }
}

/** An agent whose turns may be answered early, as its client calls it. */
export interface EarlyAnsweringAgent {
  /** Where the agent lives, for the operator's warning. */
  upstream: string;
  config: UpstreamConfig;
  /** Told (at most once a minute) when such turns find the reads at their cap. */
  logger?: WarningLogger | undefined;
  /** Whether the agent streams its turns, by its card (loaded first when none is yet). */
  streams(ctx: CallContext): Promise<boolean>;
  /** The turn as a stream of 1.0 events, ended (its response closed) at the turn's end. */
  stream(request: SendMessageRequest, ctx: CallContext): AsyncIterable<StreamResponse>;
  getTask(taskId: string, ctx: CallContext): Promise<Task>;
}

export interface TurnsAnsweredEarly {
  /**
   * A `returnImmediately` SendMessage to an agent that streams, answered with its turn's first event and read on
   * past the call (DetachedTurns); undefined: the call is sent as it is (a caller who waits, an agent that does not
   * stream, or no room left for a new task).
   */
  send(request: SendMessageRequest, ctx: CallContext): Promise<SendMessageResponse | undefined>;
  /** Ends the turns still read (the client closes). */
  close(): Promise<void>;
}

export function createTurnsAnsweredEarly(agent: EarlyAnsweringAgent): TurnsAnsweredEarly {
  const { config } = agent;
  const warnReadsFull = throttledWarnings(agent.logger);
  const limit = detachedReadLimit(config.connections);
  // With one connection (one read at most) the read holds it: any other call to the agent waits for the turn's end.
  const readsMayHoldThePool = limit === config.connections;
  const turns = createDetachedTurns({
    limit,
    onFull: (cap) =>
      warnReadsFull(
        { upstream: agent.upstream, limit: cap, connections: config.connections ?? 0 },
        'returnImmediately turns read in the background at their cap: new tasks are sent with blocking false, messages going on with a task wait for a read to end (a2a-js 0.2.5 fails those sent non-blocking)',
      ),
  });
  // Set once the agent refused to stream a message going on with its task that it takes otherwise (unstreamable-follow-up.ts):
  // such messages are then sent as the caller asked, not streamed first (an a2a-js 1.x executor runs the refused turn all the same).
  let followUpsUnstreamed = false;
  return {
    async send(request, ctx) {
      if (request.configuration?.returnImmediately !== true || !(await agent.streams(ctx))) return undefined;
      const followUp = Boolean(request.message.taskId);
      if (followUp && followUpsUnstreamed) return undefined;
      // The stream is the gateway's, not the caller's: nothing of it commits the caller's response.
      const { onAccepted: _callersOwn, ...streamCtx } = ctx;
      let first: StreamResponse | undefined;
      try {
        first = await turns.firstEvent(
          (signal) => agent.stream(request, withFields(streamCtx, { signal })),
          ctx,
          // The SDK publishes a new task's Task, so a non-blocking send answers it; a message going on with a task it fails.
          { boundMs: config['request-timeout-ms'], waitForRoom: followUp },
        );
      } catch (error) {
        if (!(await refusedToStreamFollowUp(error, request, (id) => agent.getTask(id, ctx)))) throw error;
        followUpsUnstreamed = true;
        return undefined;
      }
      return first && answerOfFirstEvent(first, readsMayHoldThePool ? undefined : (id) => agent.getTask(id, ctx));
    },
    close: () => turns.close(),
  };
}
