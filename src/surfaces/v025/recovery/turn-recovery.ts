import { setTimeout as sleep } from 'node:timers/promises';
import type { CallContext } from '../../../core/agent-port.js';
import { SteppedStage, type Step } from '../../../core/stepped-stages.js';
import { withoutHistoryLength } from '../../../core/history-length.js';
import { withFields, isActiveState, type Artifact, type SendMessageRequest, type StreamResponse, type Task } from '../../../model/index.js';
import type { PipelineStateReader } from '../../../upstream/iac-code/pipeline-state.js';
import { timedSignal } from '../../../timed-signal.js';
import type { V025FacadeDeps } from '../deps.js';
import { withReplayedGap } from './turn-pipeline-replay.js';
import { brokeOff, refusedTheGateway, resubscribed } from './turn-resubscribe.js';
import { restCursor, restEvents, type RestCursor, type TurnSoFar } from './turn-rest.js';
import { noted, type ShownTurn, type TurnTracker } from './turn-tracker.js';

/** How often the task is read while it still works: soon after the break, then less often. */
const POLL_MS = [250, 500, 1000, 2000];
/** GetTask failures in a row after which the rest is given up (the agent is gone, not blinking). */
const MAX_FAILED_READS = 3;
/** The waits before subscribing again after a resubscription broke off too: never at once, in case it breaks at once. */
const RESUBSCRIBE_MS = [100, 250, 500, 1000, 2000];
/**
 * How long a follow-up's opening waiting task, unchanged, is read as "the agent has not gone on yet": an
 * agent that goes on does so at once; past this the task as it stands is the answer (it may have been all
 * of it), rather than read to the turn's bound.
 */
const HELD_WAIT_MS = 1_500;
/**
 * How long subscriptions the agent ends at once, the task unchanged (turn-resubscribe.ts `unfollowed`), are taken
 * for a blip: past this no run of the turn goes on at the agent (an a2a-js 1.x executor that returned without the
 * turn's end leaves its task working for good), and the turn ends as a stream that broke off does, at once rather
 * than at the recovery's bound (`upstream.request-timeout-ms`, 600 s by default).
 */
const UNFOLLOWED_MS = 2_000;

export interface Reader {
  getTask(taskId: string): Promise<Task>;
  /** SubscribeToTask, ended by `signal` too (the bound of the recovery). */
  subscribe(taskId: string, signal: AbortSignal): AsyncIterable<StreamResponse>;
  /** The turn's signal: its time limit, or its caller leaving, ends the reading too. */
  signal: AbortSignal;
  /** How long after the break the task may be read (`upstream.request-timeout-ms`; 0: as long as the turn lasts). */
  boundMs: number;
  earlierArtifacts?: readonly Artifact[];
  /** iac-code's journal of pipeline envelopes (its pipeline state route), when the upstream may have one. */
  pipelineState?: PipelineStateReader;
}

/**
 * A turn's SendStreamingMessage, whose rest is recovered when its stream breaks off before the turn ended
 * (the connection cut, a proxy that closed an idle stream while a tool ran): the agent goes on with the turn
 * regardless, so the facade follows the task again (SubscribeToTask) and shows what the agent said after the
 * break as if the stream had not broken (turn-resubscribe.ts), or, when it cannot subscribe, reads the task
 * until it no longer works (turn-rest.ts). One path for message/send and message/stream, which read the same
 * events. Every event it relays is noted in the turn's `tracker`. `previous`: the task the turn continues, as it was before.
 */
export function recoverableTurn(
  request: SendMessageRequest,
  ctx: CallContext,
  deps: V025FacadeDeps,
  tracker: TurnTracker,
  previous?: Task,
): AsyncIterable<StreamResponse> {
  const before = previous && previous.id === request.message.taskId ? previous : undefined;
  const shown = tracker.sentAs(before ? { sent: request.message, previous: before } : { sent: request.message });
  // The reply is read from the turn's Task events whole (their history too): a caller's historyLength, which
  // 0.2.5 gives no meaning on a stream, is not passed on for an agent (a2a-js 1.x) or the core to cut them by.
  return new RecoveredRest(deps.port.sendStreamingMessage(withoutHistoryLength(request), ctx), shown, ctx, deps, before);
}

/** How the rest of a turn is read from the agent, within the turn's call. `before`: the task as it was before the turn. */
export function readerOf(ctx: CallContext, deps: V025FacadeDeps, before: Task | undefined): Reader {
  // The caller's stream was accepted with the turn's: a resubscription accepted later says nothing new.
  const { onAccepted: _accepted, ...followCtx } = ctx;
  return {
    getTask: (id) => deps.port.getTask({ id }, ctx),
    subscribe: (id, signal) => deps.port.subscribeToTask({ id }, withFields(followCtx, { signal })),
    signal: ctx.signal,
    boundMs: deps.options.requestTimeoutMs,
    ...(before?.artifacts ? { earlierArtifacts: before.artifacts } : {}),
    ...(deps.pipelineState ? { pipelineState: deps.pipelineState } : {}),
  };
}

/**
 * The rest of a turn that still runs at the agent while no stream follows it (a shutdown cut the one that
 * did: cut-turns.ts), followed live as a broken stream's rest is, from after what its caller was shown: what
 * `tracker` began with. Ends, like a stream that broke off, without an end when that cannot be followed to the turn's end.
 */
export async function* followedRest(taskId: string, tracker: TurnTracker, ctx: CallContext, deps: V025FacadeDeps): AsyncGenerator<StreamResponse> {
  const reader = readerOf(ctx, deps, tracker.soFar().previous);
  const ended = yield* restOfTurn(taskId, tracker, reader);
  if (!ended && reader.signal.aborted) throw reader.signal.reason;
}

/**
 * The stream's events as they come; when it fails or ends while the task still works (after an event named
 * it), the rest of the turn. When that fails too, the turn ends as it would have without it: the stream's
 * error is thrown, a stream that just ended ends (the reply says it broke off).
 *
 * A stage (core/stepped-stages.ts): the stream's events are read through it, with the layers below, in one reaction
 * per event; after a break it reads the rest of the turn (a generator: a rare path). The reader of that rest is made
 * only then (readerOf copies the call's context): a turn whose stream does not break never needs it.
 */
class RecoveredRest extends SteppedStage<StreamResponse, StreamResponse> {
  #upstream: AsyncIterator<StreamResponse> | undefined;
  /** The stream broke off or ended early: the rest of the turn is read now. */
  #resting = false;

  constructor(
    private readonly events: AsyncIterable<StreamResponse>,
    private readonly tracker: ShownTurn,
    private readonly ctx: CallContext,
    private readonly deps: V025FacadeDeps,
    private readonly before: Task | undefined,
  ) {
    super();
  }

  protected open(): AsyncIterator<StreamResponse> {
    return (this.#upstream = this.events[Symbol.asyncIterator]());
  }

  protected step(result: IteratorResult<StreamResponse>): Step<StreamResponse> | Promise<Step<StreamResponse>> {
    if (this.#resting) return result.done ? END : { items: [result.value] };
    if (result.done) return this.#resumable() ? this.#rest({}) : END;
    this.tracker.note(result.value);
    return { items: [result.value] };
  }

  protected override recover(error: unknown): Promise<Step<StreamResponse>> {
    // A stream that broke off right after the waiting task a follow-up opens with: the agent goes on with the
    // answer. (One that ended there cleanly said all: that task was the answer.)
    const resumableAfterBreak = this.#resumable() || (this.tracker.heldStatus !== undefined && !this.ctx.signal.aborted);
    if (this.#resting || !resumableAfterBreak || !brokeOff(error)) throw error;
    return this.#rest({ error });
  }

  #resumable(): boolean {
    // The call's signal, which the rest's reader reads by (readerOf).
    const { tracker, ctx } = this;
    return tracker.taskId !== undefined && tracker.state !== undefined && isActiveState(tracker.state) && !ctx.signal.aborted;
  }

  async #rest(broke: { error?: unknown }): Promise<Step<StreamResponse>> {
    await Promise.resolve(this.#upstream?.return?.()).catch(() => undefined);
    this.#resting = true;
    const reader = readerOf(this.ctx, this.deps, this.before);
    this.continueWith(restAfterBreak(this.tracker.taskId as string, this.tracker, reader, broke));
    return { items: [] };
  }
}

const END: Step<never> = { items: [], end: true };

/**
 * The rest of the turn after its stream broke; when that fails too, the turn ends as it would have without it: the
 * stream's error is thrown, a stream that just ended ends (the reply says it broke off).
 */
async function* restAfterBreak(taskId: string, tracker: ShownTurn, reader: Reader, broke: { error?: unknown }): AsyncGenerator<StreamResponse> {
  const ended = yield* restOfTurn(taskId, tracker, reader);
  // The turn's own time limit ended the reading: that is why it failed, as it would be without the break.
  if (!ended && reader.signal.aborted) throw reader.signal.reason;
  if (!ended && 'error' in broke) throw broke.error;
}

/**
 * The rest of the turn, within the bound from the break; whether it came to the turn's end. Followed live
 * (SubscribeToTask) while the agent lets it, subscribing again after a short wait when that stream breaks
 * too; read from the task (GetTask) when the agent refuses or fails the subscription, and when the snapshot
 * cannot tell where a file goes (the reading waits for the turn's end, which tells it). The agent refusing
 * the gateway's credentials ends it at once, that refusal thrown: it is why the turn failed.
 */
async function* restOfTurn(taskId: string, tracker: ShownTurn, reader: Reader): AsyncGenerator<StreamResponse, boolean> {
  const deadline = reader.boundMs > 0 ? Date.now() + reader.boundMs : Infinity;
  const bound = timedSignal(reader.signal, reader.boundMs);
  const { signal } = bound;
  const follower = {
    subscribe: (id: string) => reader.subscribe(id, signal),
    ...(reader.earlierArtifacts ? { earlierArtifacts: reader.earlierArtifacts } : {}),
    ...(reader.pipelineState ? { pipelineState: reader.pipelineState } : {}),
    signal,
  };
  // Since when every subscription ended at once with nothing new: reset by anything the agent sends.
  let unfollowedSince = Date.now();
  try {
    for (let attempt = 0; ; attempt++) {
      const end = yield* resubscribed(taskId, tracker, follower);
      if (end === 'ended') return true;
      if (signal.aborted) return false;
      if (end !== 'unfollowed') unfollowedSince = Date.now();
      else if (Date.now() - unfollowedSince >= UNFOLLOWED_MS) return false;
      // A subscription that could not reach the agent is a failed read of the task: three in a row end the turn.
      if (end !== 'broke' && end !== 'unfollowed')
        return (yield* polledRest(taskId, tracker, reader, deadline, end === 'unreachable' ? 1 : 0)) === 'ended';
      const wait = RESUBSCRIBE_MS[Math.min(attempt, RESUBSCRIBE_MS.length - 1)] as number;
      if (Date.now() + wait > deadline) return false;
      try {
        await sleep(wait, undefined, { signal });
      } catch {
        return false;
      }
    }
  } finally {
    bound.clear();
  }
}

/**
 * How a reading of the task ended: `ended` with the turn; at its `bound` (`deadline`), the task still working;
 * `stopped` by the turn's signal (its caller gone, its own bound) or by reads that kept failing (the agent gone).
 */
export type PolledEnd = 'ended' | 'bound' | 'stopped';

/**
 * The rest of the turn, read from the task until it no longer works, up to `deadline`; how the reading ended.
 * Read from where the tracker was when the reading began; what it reads is noted there too.
 */
export async function* polledRest(
  taskId: string,
  tracker: ShownTurn,
  reader: Reader,
  deadline: number,
  failedBefore: number,
): AsyncGenerator<StreamResponse, PolledEnd> {
  const turn = tracker.soFar();
  let cursor: RestCursor | undefined;
  let failed = failedBefore;
  const heldUntil = Date.now() + HELD_WAIT_MS;
  for (let read = 0; ; read++) {
    let task: Task | undefined;
    try {
      task = await reader.getTask(taskId);
      failed = 0;
    } catch (error) {
      if (refusedTheGateway(error)) throw error;
      if (reader.signal.aborted || ++failed >= MAX_FAILED_READS) return 'stopped';
    }
    if (task) {
      cursor ??= restCursor(task, turn);
      const rest = restEvents(task, cursor, Date.now() < heldUntil ? turn : withoutHold(turn), reader.earlierArtifacts);
      cursor = rest.cursor;
      // What a pipeline turn said before the task's last update is not in the task: read from iac-code's journal.
      yield* noted(await withReplayedGap(rest.events, turn, reader.pipelineState, reader.signal), tracker);
      if (rest.ended) return 'ended';
    }
    const wait = POLL_MS[Math.min(read, POLL_MS.length - 1)] as number;
    if (Date.now() + wait > deadline) return 'bound';
    try {
      await sleep(wait, undefined, { signal: reader.signal });
    } catch {
      return 'stopped';
    }
  }
}

/** The turn with its opening waiting task no longer taken for one the agent goes on from. */
export function withoutHold(turn: TurnSoFar): TurnSoFar {
  if (turn.heldStatus === undefined) return turn;
  const { heldStatus: _held, ...rest } = turn;
  return rest;
}
