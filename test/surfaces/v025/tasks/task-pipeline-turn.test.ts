/**
 * tasks/get of a finished iac-code pipeline turn reads the turn's words from iac-code's journal, from where the
 * turn began (task-pipeline-turn.ts). A turn that answered a permission prompt began after that prompt, whose
 * envelope may say `working` (docs/iac-code.md, "Pipeline mode"): the turn before's words and files are not its.
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import type { JsonObject } from '../../../../src/model/json.js';
import type { PipelineStateReader } from '../../../../src/upstream/iac-code/pipeline-state.js';
import { withTurnWordsFromJournal } from '../../../../src/surfaces/v025/tasks/task-pipeline-turn.js';
import { rawEnvelopes, wordsLostEvent } from '../../../../src/surfaces/v025/recovery/turn-pipeline.js';
import type { TurnSoFar } from '../../../../src/surfaces/v025/recovery/turn-rest.js';

const TASK = 'task-1';
const CONTEXT = 'ctx-1';
const signal = new AbortController().signal;
const turn: TurnSoFar = { sent: { messageId: 'u2', role: 'ROLE_USER', parts: [{ text: 'allow' }] }, passed: [] };

const envelope = (sequence: number, eventType: string, status: string, data: JsonObject = {}): JsonObject => ({
  sequence,
  eventType,
  status,
  data,
  taskId: TASK,
  contextId: CONTEXT,
  step: { id: 'deploying', runId: 'step-1', index: 1, total: 1 },
});
const reader = (journal: JsonObject[]): PipelineStateReader => ({
  eventsAfter: async (_ref, after) => journal.filter((entry) => (entry.sequence as number) > after),
});
const file = (artifactId: string, text: string): StreamResponse => ({
  artifactUpdate: { taskId: TASK, contextId: CONTEXT, artifact: { artifactId, parts: [{ text }] } },
});
const finished = (last: JsonObject): StreamResponse => ({
  statusUpdate: { taskId: TASK, contextId: CONTEXT, status: { state: 'TASK_STATE_COMPLETED' }, metadata: { iac_code: { pipeline: last } } },
});
/** The words and files the events show, in order. */
const shown = (events: readonly StreamResponse[]): string[] =>
  events.flatMap((event) => {
    if ('artifactUpdate' in event) return [`file ${event.artifactUpdate.artifact.artifactId}`];
    if (!('statusUpdate' in event)) return [];
    return (rawEnvelopes(event.statusUpdate.metadata) ?? []).flatMap((entry) => {
      const text = (entry.data as JsonObject | undefined)?.text;
      return typeof text === 'string' ? [text] : [];
    });
  });

describe('tasks/get of a finished pipeline turn', () => {
  it("that answered a permission prompt whose envelope says working shows this turn's words and files only", async () => {
    const end = envelope(7, 'pipeline_completed', 'completed');
    const journal = [
      envelope(1, 'pipeline_started', 'working'),
      envelope(2, 'text_delta', 'working', { text: 'I will write main.tf.' }),
      envelope(3, 'artifact_created', 'working', { artifactId: 'draft.tf' }),
      envelope(4, 'permission_requested', 'working', { toolName: 'write_file' }),
      envelope(5, 'input_received', 'working', { kind: 'permission' }),
      envelope(6, 'text_delta', 'working', { text: 'main.tf written.' }),
      end,
    ];
    const events = [wordsLostEvent(TASK, CONTEXT), file('draft.tf', 'draft'), file('main.tf', 'main'), finished(end)];
    expect(shown(await withTurnWordsFromJournal(events, turn, reader(journal), signal))).toEqual(['main.tf written.', 'file main.tf']);
  });

  it('that answered a question begins after it, as before', async () => {
    const end = envelope(5, 'pipeline_completed', 'completed');
    const journal = [
      envelope(1, 'text_delta', 'working', { text: 'Which region?' }),
      envelope(2, 'input_required', 'input_required', { kind: 'ask_user_question' }),
      envelope(3, 'input_received', 'working'),
      envelope(4, 'text_delta', 'working', { text: 'Deploying to Hangzhou.' }),
      end,
    ];
    const events = [wordsLostEvent(TASK, CONTEXT), finished(end)];
    expect(shown(await withTurnWordsFromJournal(events, turn, reader(journal), signal))).toEqual(['Deploying to Hangzhou.']);
  });
});
