import { withFields, type StreamResponse } from '../../../model/index.js';
import type { JsonObject } from '../../../model/json.js';
import { textField } from '../../../upstream/iac-code/fields.js';
import type { PipelineStateReader } from '../../../upstream/iac-code/pipeline-state.js';
import { USER_ASKS } from '../reply/pipeline-text.js';
import { isWordsLostEvent, pipelineSequences } from '../recovery/turn-pipeline.js';
import { neverSent, withReplayedGap } from '../recovery/turn-pipeline-replay.js';
import type { TurnSoFar } from '../recovery/turn-rest.js';

/**
 * The words of a finished iac-code pipeline turn that tasks/get reads from iac-code's journal: the task keeps
 * only its latest update's envelopes, and the rest read from it (turn-rest.ts) marks where the words before were
 * lost (turn-pipeline.ts). Nobody was shown any of this turn, so the gap runs from where the turn began, which the
 * journal tells: every iac-code turn continues the task, and each one before ended on an envelope that asks the
 * user (a permission prompt's may say `working`) or whose status is not `working` (its end). The gap is filled as
 * a broken stream's recovery fills it (turn-pipeline-replay.ts), and the files whose `artifact_created` came
 * before the turn began are an earlier turn's, not shown again. Without the journal, the latest update's words
 * are all there is (the mark goes: no stream of a tasks/get broke).
 */

const sequenceOf = (envelope: JsonObject): number | undefined =>
  typeof envelope.sequence === 'number' && Number.isFinite(envelope.sequence) ? envelope.sequence : undefined;

/** The envelopes the agent sent for the task, as the journal keeps them. */
const sentFor = (journal: readonly JsonObject[], taskId: string): JsonObject[] =>
  journal.filter(
    (envelope) => !neverSent(envelope) && (envelope.taskId === undefined || envelope.taskId === taskId || envelope.deliveryTaskId === taskId),
  );

const endsTurn = (envelope: JsonObject): boolean =>
  envelope.status !== 'working' || (typeof envelope.eventType === 'string' && USER_ASKS.has(envelope.eventType));

/** The number of the last envelope sent before `until` that ended a turn (0: none did, the turn opened the task). */
function turnStartIn(sent: readonly JsonObject[], until: number): number {
  let start = 0;
  for (const envelope of sent) {
    const sequence = sequenceOf(envelope);
    if (sequence !== undefined && sequence < until && sequence > start && endsTurn(envelope)) start = sequence;
  }
  return start;
}

/** The ids of the files the agent made up to envelope `start` (its earlier turns'). */
const filesBefore = (sent: readonly JsonObject[], start: number): Set<string> =>
  new Set(
    sent.flatMap((envelope) => {
      const sequence = sequenceOf(envelope);
      const id = envelope.eventType === 'artifact_created' ? textField((envelope.data as JsonObject | undefined)?.artifactId) : undefined;
      return id !== undefined && sequence !== undefined && sequence <= start ? [id] : [];
    }),
  );

/** A reader that answers from a journal read once. */
const readOnce = (journal: readonly JsonObject[]): PipelineStateReader => ({
  eventsAfter: async (_ref, after) => journal.filter((envelope) => (sequenceOf(envelope) ?? 0) > after),
});

/** `events` (a finished turn read from its task) with the pipeline words the task lost read from the journal, and no mark. */
export async function withTurnWordsFromJournal(
  events: readonly StreamResponse[],
  turn: TurnSoFar,
  reader: PipelineStateReader | undefined,
  signal: AbortSignal,
): Promise<StreamResponse[]> {
  const unmarked = events.filter((event) => !isWordsLostEvent(event));
  const mark = events.find(isWordsLostEvent);
  if (!reader || !mark || !('statusUpdate' in mark)) return unmarked;
  const { taskId, contextId } = mark.statusUpdate;
  const sequences = events.flatMap((event) =>
    'statusUpdate' in event && !isWordsLostEvent(event) ? pipelineSequences(event.statusUpdate.metadata) : [],
  );
  if (sequences.length === 0) return unmarked;
  const journal = await reader.eventsAfter({ taskId, contextId }, 0, signal);
  if (!journal) return unmarked;
  const sent = sentFor(journal, taskId);
  const start = turnStartIn(sent, Math.min(...sequences));
  const earlier = filesBefore(sent, start);
  const ownFiles = events.filter((event) => !('artifactUpdate' in event && earlier.has(event.artifactUpdate.artifact.artifactId)));
  const filled = await withReplayedGap(ownFiles, withFields(turn, { pipelineSequence: start }), readOnce(journal), signal);
  return filled.filter((event) => !isWordsLostEvent(event));
}
