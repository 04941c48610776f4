import { withFields, type Message, type TaskStatus, type TaskStatusUpdateEvent } from '../../../model/index.js';
import type { V025StreamEvent } from '../../../protocol/v025/index.js';
import type { PipelineEnvelope } from '../../../upstream/iac-code/pipeline-events.js';
import { upstreamArtifactEvents } from './artifacts.js';
import { heldBlocks, holdsNothing, NOTHING_HELD, pipelineSaid } from './pipeline-text.js';
import { onPlainStatus } from './plain-status.js';
import { withState, type ReplyOptions, type ReplyState } from './state.js';
import { endsCallerTurn } from './turn-bounds.js';

/** A piece of a pipeline update as the working message it reads like. */
const pieceUpdate = (event: TaskStatusUpdateEvent, piece: { text: string; key: string }, state?: TaskStatus): TaskStatusUpdateEvent => {
  const message: Message = { messageId: piece.key, role: 'ROLE_AGENT', parts: [{ text: piece.text }] };
  const status: TaskStatus = state ? withFields(state, { message }) : { state: 'TASK_STATE_WORKING', message };
  return withFields(event, { status, metadata: state ? event.metadata : undefined });
};

/**
 * An iac-code pipeline update: what its envelopes say (pipeline-text.ts) goes through the rules of any
 * agent message, piece by piece, as working messages. A question or a reason that ends the turn carries
 * the update's state, as a status message with it would; otherwise the update itself ends the turn.
 */
export function onPipelineStatus(
  state: ReplyState,
  event: TaskStatusUpdateEvent,
  envelopes: readonly PipelineEnvelope[],
  out: V025StreamEvent[],
  options: ReplyOptions,
): ReplyState {
  const final = endsCallerTurn(event.status.state, options);
  const said = pipelineSaid(envelopes, state.pipelineHeld, event.metadata, final, options.words);
  let next = said.hold === state.pipelineHeld ? state : withState(state, { pipelineHeld: said.hold });
  const closing = final ? said.pieces.findLastIndex((piece) => 'ends' in piece) : -1;
  let spoke = false;
  for (const [at, piece] of said.pieces.entries()) {
    if ('break' in piece) {
      next = withState(next, { breakPending: true });
      continue;
    }
    spoke = true;
    if ('artifact' in piece) {
      next = upstreamArtifactEvents(next, piece.artifact, out, options);
      continue;
    }
    next = onPlainStatus(next, pieceUpdate(event, piece, at === closing ? event.status : undefined), out, options, true);
  }
  return !spoke || (final && closing < 0) ? onPlainStatus(next, event, out, options) : next;
}

/** A turn that ends other than by a pipeline update still shows what its candidates wrote so far. */
export function withHeldShown(state: ReplyState, out: V025StreamEvent[], options: ReplyOptions): ReplyState {
  if (holdsNothing(state.pipelineHeld)) return state;
  let next: ReplyState = withState(state, { pipelineHeld: NOTHING_HELD });
  const working = { taskId: state.taskId, contextId: state.contextId, status: { state: 'TASK_STATE_WORKING' as const } };
  for (const piece of heldBlocks(state.pipelineHeld, options.words)) {
    if ('text' in piece) next = onPlainStatus(next, pieceUpdate(working, piece), out, options, true);
    else if ('artifact' in piece) next = upstreamArtifactEvents(next, piece.artifact, out, options);
  }
  return withState(next, { lastStatus: state.lastStatus });
}
