/**
 * The gap a broken pipeline turn's recovery marks, filled from iac-code's journal (turn-pipeline-replay.ts):
 * what it leaves out (copies iac-code never sent, another task's entries, chunks the next update joins on the
 * wire), where a missed file goes, and that any failure of the read leaves the mark as it was.
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import type { JsonObject } from '../../../../src/model/json.js';
import type { PipelineStateReader } from '../../../../src/upstream/iac-code/pipeline-state.js';
import { wordsLostEvent } from '../../../../src/surfaces/v025/recovery/turn-pipeline.js';
import { withReplayedGap } from '../../../../src/surfaces/v025/recovery/turn-pipeline-replay.js';
import type { TurnSoFar } from '../../../../src/surfaces/v025/recovery/turn-rest.js';

const TASK = 't-1';
const CONTEXT = 'c-1';
const signal = new AbortController().signal;
const turn: TurnSoFar = { sent: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'go' }] }, passed: [], pipelineSequence: 10 };

const envelope = (sequence: number, eventType: string, extra: JsonObject = {}): JsonObject => ({
  eventId: `evt-${sequence}`,
  sequence,
  eventType,
  status: 'working',
  taskId: TASK,
  contextId: CONTEXT,
  pipelineRunId: CONTEXT,
  data: {},
  ...extra,
});
const update = (...envelopes: JsonObject[]): StreamResponse => ({
  statusUpdate: {
    taskId: TASK,
    contextId: CONTEXT,
    status: { state: 'TASK_STATE_WORKING' },
    metadata: { iac_code: { pipelineBatch: { events: envelopes } } },
  },
});
const file = (artifactId: string): StreamResponse => ({
  artifactUpdate: { taskId: TASK, contextId: CONTEXT, artifact: { artifactId, parts: [{ text: 'Resources: {}' }] } },
});
const reader = (events: JsonObject[] | undefined, asked: number[] = []): PipelineStateReader => ({
  eventsAfter: async (_ref, after) => {
    asked.push(after);
    return events;
  },
});
/** The envelopes (by sequence) or files (by id) `events` show, in order. */
const shown = (events: readonly StreamResponse[]): Array<number | string> =>
  events.flatMap((event) => {
    if ('artifactUpdate' in event) return [event.artifactUpdate.artifact.artifactId];
    if (!('statusUpdate' in event)) return [];
    const iacCode = event.statusUpdate.metadata?.iac_code as JsonObject;
    const list = iacCode.pipeline ? [iacCode.pipeline] : ((iacCode.pipelineBatch as JsonObject).events as JsonObject[]);
    return (list as JsonObject[]).map((entry) => (typeof entry.sequence === 'number' ? entry.sequence : String(entry.eventType)));
  });

describe('a pipeline gap filled from the journal', () => {
  const next = update(envelope(16, 'step_started'));

  it('shows what was sent between the last number read and the next update, in order, and asks after the number read', async () => {
    const asked: number[] = [];
    const journal = [envelope(12, 'text_delta'), envelope(11, 'text_delta'), envelope(16, 'step_started'), envelope(17, 'text_delta')];
    const events = await withReplayedGap([wordsLostEvent(TASK, CONTEXT), next], turn, reader(journal, asked), signal);
    expect(asked).toEqual([10]);
    expect(shown(events)).toEqual([11, 12, 16]);
    // What came in the gap came as working updates, whatever the state its envelopes name.
    expect(events.slice(0, 2).every((event) => 'statusUpdate' in event && event.statusUpdate.status.state === 'TASK_STATE_WORKING')).toBe(true);
  });

  it('leaves out the copies iac-code never sent and another task’s entries; an empty gap is no gap', async () => {
    const journal = [envelope(11, 'pipeline_completed', { visibility: 'pending_backup' }), envelope(12, 'text_delta', { taskId: 'other' })];
    expect(shown(await withReplayedGap([wordsLostEvent(TASK, CONTEXT), next], turn, reader(journal), signal))).toEqual([16]);
  });

  it('does not repeat the chunks a joined chunk of the next update stands for (its first eventId, its last number)', async () => {
    const candidate = { candidate: { id: 'c', runId: 'c-run', index: 0 } };
    const journal = [
      envelope(11, 'text_delta', { eventId: 'evt-a', ...candidate }),
      envelope(12, 'text_delta'),
      envelope(13, 'text_delta', { eventId: 'evt-b', ...candidate }),
      envelope(14, 'text_delta', { eventId: 'evt-c', ...candidate }),
    ];
    // On the wire: the candidate's chunks 13 and 14 joined as one, numbered 14, with 13's eventId.
    const joined = update(envelope(14, 'text_delta', { eventId: 'evt-b', ...candidate }));
    expect(shown(await withReplayedGap([wordsLostEvent(TASK, CONTEXT), joined], turn, reader(journal), signal))).toEqual([11, 12, 14]);
  });

  it('puts a missed file just before the envelope that names it, so it goes under its candidate', async () => {
    const journal = [
      envelope(11, 'text_delta'),
      envelope(12, 'artifact_created', { data: { artifactId: 'f-1' } }),
      envelope(13, 'candidate_completed'),
    ];
    const events = await withReplayedGap([wordsLostEvent(TASK, CONTEXT), file('f-1'), file('f-2'), next], turn, reader(journal), signal);
    expect(shown(events)).toEqual([11, 'f-1', 12, 13, 'f-2', 16]);
  });

  it('keeps the mark when the journal cannot be read, or nothing follows it to tell where the gap ends', async () => {
    const marked = [wordsLostEvent(TASK, CONTEXT), next];
    expect(await withReplayedGap(marked, turn, reader(undefined), signal)).toBe(marked);
    const failing: PipelineStateReader = { eventsAfter: () => Promise.reject(new Error('boom')) };
    expect(await withReplayedGap(marked, turn, failing, signal)).toBe(marked);
    expect(await withReplayedGap(marked, turn, undefined, signal)).toBe(marked);
    const endless = [wordsLostEvent(TASK, CONTEXT)];
    expect(await withReplayedGap(endless, turn, reader([envelope(11, 'text_delta')]), signal)).toBe(endless);
  });

  it('without a number read this turn, asks after the highest the task kept from the turn before', async () => {
    const asked: number[] = [];
    const previous = {
      id: TASK,
      contextId: CONTEXT,
      status: { state: 'TASK_STATE_INPUT_REQUIRED' as const },
      metadata: { iac_code: { pipeline: envelope(7, 'input_required') } },
    };
    const fresh: TurnSoFar = { sent: turn.sent, passed: [], previous };
    await withReplayedGap([wordsLostEvent(TASK, CONTEXT), next], fresh, reader([], asked), signal);
    expect(asked).toEqual([7]);
  });
});
