import { A2AError, ErrorCode, eventTaskRef, isActiveState, type Artifact, type StreamResponse } from '../../../model/index.js';
import type { PipelineStateReader } from '../../../upstream/iac-code/pipeline-state.js';
import type { ShownTurn } from './turn-tracker.js';
import { SnapshotEcho } from './turn-echo.js';
import { withReplayedGap } from './turn-pipeline-replay.js';
import { snapshotGap } from './turn-snapshot.js';
import { waitsAsHeld } from './turn-rest.js';

/**
 * One resubscription (SubscribeToTask) to the task of a turn whose stream broke off: iac-code answers an
 * active task with its current Task, then every later event as it happens, and ends after the first
 * input-required or terminal status. The snapshot tells what the broken stream missed (turn-snapshot.ts);
 * the live events are relayed as they come, into the same reducer as the stream's, so tool calls, files and
 * text after the break show as if the stream had not broken.
 */

/**
 * A stream that broke off, rather than an error the agent reported (which is its word on the turn) or its
 * refusal of the gateway's credentials (which following the task again would only meet once more): the
 * connection lost or gone quiet past the stream's bound, as the upstream clients tell it (UpstreamFault),
 * never read from the error's words, which a refusal of the credentials shares.
 */
export const brokeOff = (error: unknown): boolean =>
  !(error instanceof A2AError) || error.hopFailure === 'quiet' || error.upstreamFault === 'connection';

/** The agent refused the gateway's credentials: no later call of the turn's recovery would be let in either, so none is made. */
export const refusedTheGateway = (error: unknown): boolean => error instanceof A2AError && error.upstreamFault === 'credentials';

/** The agent's own answer that it will not be subscribed to (the task is not active, not known, or it cannot), rather than a failed call. */
const REFUSALS: ReadonlySet<number> = new Set([ErrorCode.TaskNotFound, ErrorCode.UnsupportedOperation, ErrorCode.MethodNotFound]);
const refusal = (error: unknown): boolean => error instanceof A2AError && REFUSALS.has(error.code);

/**
 * How a resubscription ended: `ended` with the turn; before its snapshot, `refused` by the agent (a task that
 * no longer works is "not active", an agent that cannot subscribe) or `unreachable` (the call itself failed: no answer, an HTTP error, an internal error);
 * `broke` after it, the turn still working; `unfollowed` when the agent ended it cleanly right after a snapshot
 * that held nothing new, the task still working: it has nothing live to send (an a2a-js 1.x agent answers so once
 * its executor returned without the turn's end, and the task then never changes); `unplaced` when the snapshot
 * holds a file whose place among the missed messages it cannot tell.
 */
export type ResubscriptionEnd = 'ended' | 'refused' | 'unreachable' | 'broke' | 'unfollowed' | 'unplaced';

export interface Resubscriber {
  subscribe(taskId: string): AsyncIterable<StreamResponse>;
  /** The artifacts the task had before the turn (they are not this turn's files). */
  earlierArtifacts?: readonly Artifact[];
  /** iac-code's journal of a pipeline turn's envelopes, for the words its snapshot cannot tell (turn-pipeline-replay.ts). */
  pipelineState?: PipelineStateReader;
  /** The bound of the recovery: the journal is not waited for past it. */
  signal?: AbortSignal;
}

/** A frame that carries nothing: iac-code ends some streams with an empty `{"result":{}}` (an SDK completion marker). */
const carriesNothing = (event: StreamResponse): boolean =>
  !('task' in event) && !('message' in event) && !('statusUpdate' in event) && !('artifactUpdate' in event);

const stillWorks = (tracker: ShownTurn): boolean => tracker.state !== undefined && isActiveState(tracker.state);

/** The turn's events from one resubscription, each noted in `tracker` as it is shown; how it ended. Throws the agent's refusal of the gateway's credentials. */
export async function* resubscribed(taskId: string, tracker: ShownTurn, reader: Resubscriber): AsyncGenerator<StreamResponse, ResubscriptionEnd> {
  const source = reader.subscribe(taskId)[Symbol.asyncIterator]();
  let followed = false;
  // Whether anything new came: a live event, or a snapshot that showed what the turn had not shown yet.
  let progressed = false;
  // What the snapshot holds: the agent may send some of it live too, as the subscription began (turn-echo.ts).
  let echo: SnapshotEcho | undefined;
  try {
    for (;;) {
      let next: IteratorResult<StreamResponse>;
      try {
        next = await source.next();
      } catch (error) {
        if (refusedTheGateway(error)) throw error;
        return followed ? 'broke' : refusal(error) ? 'refused' : 'unreachable';
      }
      if (next.done) return !followed ? 'refused' : progressed || !stillWorks(tracker) ? 'broke' : 'unfollowed';
      const event = next.value;
      if (carriesNothing(event)) continue;
      // Another task's events are no answer to this subscription (an agent that answers every call with a
      // turn of its own): read as a failed call, so the task is read or the turn fails as without one.
      const about = eventTaskRef(event).taskId;
      if (about !== undefined && about !== taskId) return followed ? 'broke' : 'unreachable';
      if ('task' in event) {
        // The opening snapshot, or iac-code's finished task sent again when its queue closed early.
        const soFar = tracker.soFar();
        if (waitsAsHeld(event.task, soFar)) {
          // The agent has not gone on with the answer yet: all it says next comes live.
          followed = true;
          echo = new SnapshotEcho(event.task, soFar);
          continue;
        }
        const gap = snapshotGap(event.task, soFar, reader.earlierArtifacts);
        if (!gap.placed) return 'unplaced';
        // A pipeline turn's words before the snapshot's latest update are not in it: read from iac-code's journal.
        const signal = reader.signal ?? new AbortController().signal;
        for (const missed of await withReplayedGap(gap.events, soFar, reader.pipelineState, signal)) {
          progressed = true;
          tracker.note(missed);
          yield missed;
        }
        if (gap.ended) return 'ended';
        followed = true;
        echo = new SnapshotEcho(event.task, soFar);
        continue;
      }
      followed = true;
      progressed = true;
      // What repeats the snapshot is dropped; what may, held back until the next events tell (turn-echo.ts).
      for (const relayed of echo ? echo.pass(event) : [event]) {
        tracker.note(relayed);
        yield relayed;
        if (tracker.state !== undefined && !isActiveState(tracker.state)) return 'ended';
      }
    }
  } finally {
    await Promise.resolve(source.return?.()).catch(() => undefined);
  }
}
