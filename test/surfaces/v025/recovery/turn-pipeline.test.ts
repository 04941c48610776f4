/**
 * The recovery of a broken iac-code pipeline turn (turn-pipeline.ts): when envelopes may have been lost
 * before the one update a snapshot keeps, which envelopes a snapshot holds that are not its status's, and
 * how the line that says so reads where the gap is (reply/pipeline-text.ts).
 */
import { describe, expect, it } from 'vitest';
import type { Message, TaskStatusUpdateEvent } from '../../../../src/model/index.js';
import { NOTHING_HELD, pipelineSaid, type PipelinePiece } from '../../../../src/surfaces/v025/reply/pipeline-text.js';
import { facadeWords, FACADE_LANGUAGES } from '../../../../src/surfaces/v025/reply/words.js';
import { pipelineEnvelopes } from '../../../../src/upstream/iac-code/pipeline-events.js';
import { isWordsLostEvent, missedBefore, withoutStaleEnvelopes, wordsLostEvent } from '../../../../src/surfaces/v025/recovery/turn-pipeline.js';
import type { TurnSoFar } from '../../../../src/surfaces/v025/recovery/turn-rest.js';
import { TurnTracker } from '../../../../src/surfaces/v025/recovery/turn-tracker.js';
import { batch, candidate, envelope, single, step, text } from '../reply/pipeline-support.js';

const SENT: Message = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: '1' }] };
const numbered = (sequence: number, one: Record<string, unknown>) => ({ ...one, sequence: sequence + 0.0 });
const update = (event: ReturnType<typeof single>): TaskStatusUpdateEvent => (event as { statusUpdate: TaskStatusUpdateEvent }).statusUpdate;
const turn = (fields: Partial<TurnSoFar> = {}): TurnSoFar => ({ sent: SENT, passed: [], ...fields });

describe('missedBefore: whether envelopes may be lost before the update a snapshot keeps', () => {
  const latest = update(batch('TASK_STATE_WORKING', [numbered(7, text('a')), numbered(8, text('b'))]));

  it('the next envelope after the last one shown: nothing lost', () => {
    expect(missedBefore(latest, turn({ pipelineSequence: 6 }))).toBe(false);
  });

  it('a jump past the last one shown: words may be lost', () => {
    expect(missedBefore(latest, turn({ pipelineSequence: 4 }))).toBe(true);
  });

  it('none shown this turn: only the first envelope of a run follows on', () => {
    expect(missedBefore(latest, turn())).toBe(true);
    expect(missedBefore(update(single('TASK_STATE_WORKING', numbered(1, text('a')))), turn())).toBe(false);
  });

  it('the update the caller was shown, or one with no envelopes, misses nothing', () => {
    expect(missedBefore(latest, turn({ lastStatus: latest }))).toBe(false);
    expect(missedBefore({ taskId: 'T', contextId: 'C', status: { state: 'TASK_STATE_WORKING' } }, turn())).toBe(false);
  });
});

describe('withoutStaleEnvelopes: a snapshot whose envelopes are not its status’s', () => {
  it('envelopes left by the turn before (a bare working after its question) are dropped with their iac_code', () => {
    const question = envelope('input_required', { kind: 'ask_user_question' }, { status: 'input_required' });
    const stale = update(single('TASK_STATE_WORKING', question, { input: { kind: 'ask_user_question' } }));
    const kept = { ...stale, metadata: { ...stale.metadata, other: 1 } };
    expect(withoutStaleEnvelopes(stale)).toEqual({ taskId: 'T', contextId: 'C', status: { state: 'TASK_STATE_WORKING' } });
    expect(withoutStaleEnvelopes(kept).metadata).toEqual({ other: 1 });
  });

  it('envelopes whose last state is the status’s are the update’s own', () => {
    const own = update(single('TASK_STATE_INPUT_REQUIRED', envelope('input_required', {}, { status: 'input_required' })));
    expect(withoutStaleEnvelopes(own)).toBe(own);
  });

  it('a waiting or finished task keeps its envelopes, whatever their status says (a permission prompt said while working)', () => {
    const prompt = envelope('permission_requested', {}, { status: 'working' });
    const waiting = update(single('TASK_STATE_INPUT_REQUIRED', prompt, { permission: { tool: 'write_file' } }));
    expect(withoutStaleEnvelopes(waiting)).toBe(waiting);
  });
});

describe('the line where words were lost', () => {
  const texts = (pieces: PipelinePiece[]): string[] =>
    pieces.flatMap((piece) => ('text' in piece ? [piece.text] : ['artifact' in piece ? '[file]' : '']));
  const said = (marker: ReturnType<typeof wordsLostEvent>, language: (typeof FACADE_LANGUAGES)[number]) => {
    const words = facadeWords(language);
    const writing = pipelineSaid(
      pipelineEnvelopes(update(batch('TASK_STATE_WORKING', [text('Template A ', { ...step('eval', 2), ...candidate(0) })])).metadata)!,
      NOTHING_HELD,
      undefined,
      false,
      words,
    ).hold;
    const file = { taskId: 'T', contextId: 'C', artifact: { artifactId: 'F', parts: [{ text: 'x' }] } };
    const hold = { candidates: writing.candidates, artifacts: [file] };
    return texts(pipelineSaid(pipelineEnvelopes(update(marker).metadata)!, hold, undefined, false, words).pieces);
  };

  it.each(FACADE_LANGUAGES)('in %s: the candidates as far as they came, the line, then a file no candidate is known to own', (language) => {
    const words = facadeWords(language);
    const marker = wordsLostEvent('T', 'C');
    expect(isWordsLostEvent(marker)).toBe(true);
    expect(said(marker, language)).toEqual([`${words.candidate(1, undefined)}\nTemplate A`, words.pipelineWordsLost, '[file]']);
  });

  it('the words differ by language, and the tracker takes the line for no update of the agent’s', () => {
    expect(new Set(FACADE_LANGUAGES.map((language) => facadeWords(language).pipelineWordsLost)).size).toBe(3);
    const tracker = new TurnTracker({ sent: SENT });
    const shown = batch('TASK_STATE_WORKING', [numbered(3, text('a'))]);
    tracker.note(shown);
    tracker.note(wordsLostEvent('T', 'C'));
    expect(tracker.soFar()).toMatchObject({ lastStatus: update(shown), pipelineSequence: 3 });
  });
});
