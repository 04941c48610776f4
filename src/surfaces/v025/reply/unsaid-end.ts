import type { TaskStatus } from '../../../model/index.js';
import type { JsonObject } from '../../../translate/common.js';
import { toolOutcome } from '../../../upstream/iac-code/events.js';
import { withState, type ReplyOptions, type ReplyState } from './state.js';

/**
 * A turn that failed (or was canceled) without a word of why, or completed or waits for an answer having said nothing at all: a Bailian
 * user, who reads the reply's text alone, would see nothing, so the facade says what happened: which tools
 * ran, when the agent ran some (iac-code ends every turn waiting, also one that only ran tools).
 */
export function unsaidEnd(state: ReplyState, status: TaskStatus, options: ReplyOptions): { text: string; key: string } | undefined {
  if (options.replyArtifacts !== 'single') return undefined;
  // Any chunk sent to the caller is an answer (one of text, or a file, data or a link sent natively under
  // `render-parts: native`), and so are device commands alone (Bailian runs them).
  const silent = state.replyChunks === 0 && state.commands.length === 0;
  // A completed turn that showed nothing (no message, or one without a word) would read as an empty answer.
  if (status.state === 'TASK_STATE_COMPLETED') return silent ? { text: options.words.completedSilently, key: 'facade:end' } : undefined;
  if (status.message) return undefined;
  // Canceled is no Bailian state (the profile fails it): told as such, or the user's last line is the
  // agent's "Starting the deployment." of a turn that never finished.
  if (status.state === 'TASK_STATE_CANCELED') return { text: options.words.canceledSilently, key: 'facade:end' };
  // Auth-required and an unknown state end the turn as a failure too (bailian.json): said as one.
  const caller = options.profile.statesToV025[status.state];
  const failed = status.state === 'TASK_STATE_FAILED' || status.state === 'TASK_STATE_REJECTED' || caller === 'failed' || caller === 'rejected';
  if (failed) return { text: options.words.failedSilently, key: 'facade:end' };
  if (status.state !== 'TASK_STATE_INPUT_REQUIRED' || !silent) return undefined;
  const { words } = options;
  const text =
    state.toolsRun.length > 0
      ? words.ranToolsThenWaits(state.toolsRun)
      : state.toolsFailed.length > 0
        ? words.couldNotRunThenWaits(state.toolsFailed)
        : words.waitsSilently;
  return { text, key: 'facade:end' };
}

/** A tool call's end noted: one that ran, or one that could not (refused permission, an error) and did not run since. */
export function withToolNoted(state: ReplyState, metadata: JsonObject | undefined): ReplyState {
  const outcome = toolOutcome(metadata);
  if (!outcome) return state;
  const { name } = outcome;
  if (outcome.ran) {
    const toolsRun = state.toolsRun.includes(name) ? state.toolsRun : [...state.toolsRun, name];
    return withState(state, { toolsRun, toolsFailed: state.toolsFailed.filter((failed) => failed !== name) });
  }
  return state.toolsRun.includes(name) || state.toolsFailed.includes(name) ? state : withState(state, { toolsFailed: [...state.toolsFailed, name] });
}
