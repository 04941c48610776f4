import type { StreamResponse, TaskArtifactUpdateEvent } from '../../../model/index.js';
import type { JsonObject } from '../../../model/json.js';
import { textField } from '../../../upstream/iac-code/fields.js';
import type { PipelineStateReader } from '../../../upstream/iac-code/pipeline-state.js';
import { isWordsLostEvent, pipelineCursor, pipelineSequences, rawEnvelopes } from './turn-pipeline.js';
import type { TurnSoFar } from './turn-rest.js';

/**
 * The words of an iac-code pipeline turn that a broken stream's recovery could not read from the task
 * (turn-pipeline.ts marks the place), asked of iac-code's journal instead (its pipeline state route:
 * upstream/iac-code/pipeline-state.ts). The journal holds every envelope iac-code published, with the
 * numbers the stream carried, so the envelopes between the last one the caller read and the update the
 * recovery shows next fill the gap exactly, and a jump in the numbering that lost nothing is no gap at all.
 * When the journal cannot be read, the mark stays: the caller is told words may be missing, as before. The
 * rest of a turn its user hung up (cut-turns.ts) is filled so too, after what the note says they were shown.
 */

const number = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/**
 * iac-code journals a backup-gated envelope twice: first as `pending_backup` (never sent), then committed
 * under a new number (sent). Only what was sent is the agent's word.
 */
export const neverSent = (envelope: JsonObject): boolean => envelope.visibility === 'pending_backup';

/** Whose chunks iac-code joins on the wire: the run's own, or one candidate's (its run and attempt). */
function sourceOf(envelope: JsonObject): string {
  const candidate = envelope.candidate as JsonObject | undefined;
  if (typeof candidate !== 'object' || candidate === null) return `${String(envelope.pipelineRunId)}|run`;
  return [envelope.pipelineRunId, candidate.runId, candidate.id, candidate.index, candidate.attempt].map(String).join('|');
}

const isDelta = (envelope: JsonObject): boolean => envelope.eventType === 'text_delta' || envelope.eventType === 'thinking_delta';

/**
 * The journaled envelopes the caller missed: numbered above `after` and below the update shown next
 * (`next`, whose own envelopes it shows), in order, without those never sent. Newer iac-code servers join
 * a source's consecutive text chunks into one on the wire, which keeps the first chunk's `eventId` and the
 * last one's number: the chunks such an envelope of `next` stands for are not shown twice.
 */
function missedEnvelopes(journal: readonly JsonObject[], after: number, next: readonly JsonObject[], taskId: string): JsonObject[] {
  const until = Math.min(...next.map((envelope) => number(envelope.sequence) ?? Infinity));
  const covered = next.flatMap((joined) => {
    const first = journal.find((event) => event.eventId !== undefined && event.eventId === joined.eventId);
    const from = number(first?.sequence);
    return from !== undefined && isDelta(joined) ? [{ source: sourceOf(joined), from }] : [];
  });
  return journal
    .filter((envelope) => {
      const sequence = number(envelope.sequence);
      if (sequence === undefined || sequence <= after || sequence >= until || neverSent(envelope)) return false;
      // The route answers for the task asked; a journal entry of another task is not this turn's word.
      if (envelope.taskId !== undefined && envelope.taskId !== taskId && envelope.deliveryTaskId !== taskId) return false;
      return !covered.some((joined) => isDelta(envelope) && sourceOf(envelope) === joined.source && sequence >= joined.from);
    })
    .sort((a, b) => (number(a.sequence) ?? 0) - (number(b.sequence) ?? 0));
}

/** One missed envelope as the working update iac-code sent it in (its state is the turn's: it came before the update shown next). */
const asUpdate = (taskId: string, contextId: string, envelope: JsonObject): StreamResponse => ({
  statusUpdate: { taskId, contextId, status: { state: 'TASK_STATE_WORKING' }, metadata: { iac_code: { pipeline: envelope } } },
});

const fileOf = (event: StreamResponse): TaskArtifactUpdateEvent | undefined => ('artifactUpdate' in event ? event.artifactUpdate : undefined);

/**
 * `events` (a recovery's gap: the mark, the files the stream missed, the update shown next, ...) with the
 * mark replaced by the missed envelopes, each file the stream missed put just before the envelope that names
 * it (`artifact_created`: iac-code sends the file first, and that envelope says whose it is). Unchanged when
 * there is no mark or the journal cannot be read whole; a failure of the read never fails the turn.
 */
export async function withReplayedGap(
  events: readonly StreamResponse[],
  turn: TurnSoFar,
  reader: PipelineStateReader | undefined,
  signal: AbortSignal,
): Promise<readonly StreamResponse[]> {
  const at = events.findIndex(isWordsLostEvent);
  const mark = events[at];
  if (!reader || !mark || !('statusUpdate' in mark)) return events;
  const { taskId, contextId } = mark.statusUpdate;
  const rest = events.slice(at + 1);
  const next = rest.find((event) => 'statusUpdate' in event && pipelineSequences(event.statusUpdate.metadata).length > 0);
  const shownNext = next && 'statusUpdate' in next ? (rawEnvelopes(next.statusUpdate.metadata) ?? []) : [];
  if (shownNext.length === 0) return events;
  const after = pipelineCursor(turn);
  let journal: JsonObject[] | undefined;
  try {
    journal = await reader.eventsAfter({ taskId, contextId }, after, signal);
  } catch {
    journal = undefined;
  }
  if (!journal) return events;
  const missed = missedEnvelopes(journal, after, shownNext, taskId);
  const files = rest.filter((event) => fileOf(event) !== undefined);
  const placed = new Set<StreamResponse>();
  const filled: StreamResponse[] = [];
  for (const envelope of missed) {
    const data = envelope.data as JsonObject | undefined;
    const named = envelope.eventType === 'artifact_created' ? textField(data?.artifactId) : undefined;
    const file = named === undefined ? undefined : files.find((event) => !placed.has(event) && fileOf(event)?.artifact.artifactId === named);
    if (file) {
      placed.add(file);
      filled.push(file);
    }
    filled.push(asUpdate(taskId, contextId, envelope));
  }
  return [...events.slice(0, at), ...filled, ...rest.filter((event) => !placed.has(event))];
}
