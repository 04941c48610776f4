import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { withFields, type StreamResponse, type TaskState, type TaskStatusUpdateEvent } from '../../../model/index.js';
import { isRecord, type JsonObject } from '../../../model/json.js';
import { iacCodeOf } from '../../../upstream/iac-code/events.js';
import { WORDS_LOST_EVENT } from '../reply/pipeline-text.js';
import type { TurnSoFar } from './turn-rest.js';

/**
 * What the recovery of a broken stream must know of iac-code's pipeline turns (docs/iac-code.md, "Pipeline
 * mode"). Their words travel only as envelopes in the metadata of status updates, and the task iac-code
 * keeps merges each update's metadata over the last by top-level key: a snapshot (SubscribeToTask) or a
 * read (GetTask) holds the envelopes of the latest update alone, never those before it. So the rest of a
 * pipeline turn is exact from the task only when the broken stream missed at most that latest update, which
 * the envelopes' `sequence` tells; otherwise a gap marker goes where words were lost, which iac-code's
 * journal fills (turn-pipeline-replay.ts) or, when it cannot be read, the user reads as a line of the
 * facade's own (reply/pipeline-text.ts), rather than a reply with holes it does not show.
 */

const STATE_OF_ENVELOPE: Readonly<Record<string, TaskState>> = {
  working: 'TASK_STATE_WORKING',
  input_required: 'TASK_STATE_INPUT_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  failed: 'TASK_STATE_FAILED',
  canceled: 'TASK_STATE_CANCELED',
};

/** The raw envelopes an update carries, in order; undefined when it is no pipeline update. */
export function rawEnvelopes(metadata: JsonObject | undefined): JsonObject[] | undefined {
  const iacCode = iacCodeOf(metadata);
  if (!iacCode) return undefined;
  const batch = iacCode.pipelineBatch;
  if (isRecord(batch)) return Array.isArray(batch.events) ? batch.events.filter(isRecord) : [];
  return isRecord(iacCode.pipeline) ? [iacCode.pipeline] : undefined;
}

/** Shared, never written: an update that is no pipeline update (every update of an agent that is not iac-code's) makes no arrays. */
const NO_SEQUENCES: readonly number[] = [];

/** The envelopes' sequence numbers (floats on the wire). The recovery's tracker asks for every status update relayed. */
export function pipelineSequences(metadata: JsonObject | undefined): readonly number[] {
  const envelopes = rawEnvelopes(metadata);
  if (envelopes === undefined) return NO_SEQUENCES;
  return envelopes.map((envelope) => envelope.sequence).filter((value): value is number => typeof value === 'number');
}

/**
 * The task's latest status with the metadata it holds, when that metadata is the status's own. An update
 * that carries no metadata (iac-code opens a follow-up with a bare `working`) leaves the task's as it was:
 * the envelopes of the turn before ("input_required"), which the reply would show again. iac-code takes a
 * pipeline update's state from its last envelope, so envelopes whose state is not the status's are stale
 * and dropped with the rest of `iac_code`, which was set with them.
 */
export function withoutStaleEnvelopes(update: TaskStatusUpdateEvent): TaskStatusUpdateEvent {
  const envelopes = rawEnvelopes(update.metadata);
  const last = envelopes?.at(-1);
  if (!update.metadata || !last || typeof last.status !== 'string') return update;
  // Only a working task can hold the last turn's envelopes: one waiting or finished holds its own, whatever
  // an envelope's status says (a permission prompt's envelope may say `working` on an input-required update).
  const state = STATE_OF_ENVELOPE[last.status];
  if (update.status.state !== 'TASK_STATE_WORKING' || state === undefined || state === update.status.state) return update;
  const { iac_code: _stale, ...metadata } = update.metadata;
  const { metadata: _all, ...bare } = update;
  return Object.keys(metadata).length > 0 ? withFields(bare, { metadata }) : bare;
}

/**
 * The highest envelope number the caller has read of the task: this turn's, else the turn before's (the
 * task it continues keeps the envelopes of its last update), else 0. iac-code numbers envelopes across the
 * whole run of a context, turn after turn (its journal's high-water mark), not from 1 each turn.
 */
export function pipelineCursor(turn: TurnSoFar): number {
  if (turn.pipelineSequence !== undefined) return turn.pipelineSequence;
  const before = pipelineSequences(turn.previous?.metadata);
  return before.length > 0 ? Math.max(...before) : 0;
}

/**
 * Whether the caller may have missed envelopes before `latest`, the one update a snapshot or a read tells
 * whole, which it was not shown: its first envelope is not the one after the last the caller read
 * (pipelineCursor). iac-code numbers envelopes with gaps now and then (those it drops before publishing,
 * the copies it journals only: turn-pipeline-replay.ts), so a jump may have lost nothing: the recovery asks
 * iac-code's journal, and only when that cannot answer does the line say "may".
 */
export function missedBefore(latest: TaskStatusUpdateEvent, turn: TurnSoFar): boolean {
  const sequences = pipelineSequences(latest.metadata);
  if (sequences.length === 0) return false;
  const shown = turn.lastStatus;
  if (shown && isDeepStrictEqual(shown.status, latest.status) && isDeepStrictEqual(iacCodeOf(shown.metadata), iacCodeOf(latest.metadata))) {
    return false;
  }
  return Math.min(...sequences) > pipelineCursor(turn) + 1;
}

/** The marker of words lost at this place, a working pipeline update the reply shows as one line (its id keeps two gaps apart). */
export function wordsLostEvent(taskId: string, contextId: string): StreamResponse {
  const envelope = { eventType: WORDS_LOST_EVENT, status: 'working', data: { gapId: randomUUID() } };
  return { statusUpdate: { taskId, contextId, status: { state: 'TASK_STATE_WORKING' }, metadata: { iac_code: { pipeline: envelope } } } };
}

export const isWordsLostEvent = (event: StreamResponse): boolean =>
  'statusUpdate' in event && rawEnvelopes(event.statusUpdate.metadata)?.some((envelope) => envelope.eventType === WORDS_LOST_EVENT) === true;
