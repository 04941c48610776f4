/**
 * For random turns of 1.0 events, what message/send answers is the fold of what message/stream
 * sends: the same text (bailian: the one reply artifact), artifact by artifact (plain 0.2.5), with
 * one final status at the end; and under bailian every part is text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StreamResponse, TaskState } from '../../../../src/model/index.js';
import type { V025StreamEvent } from '../../../../src/protocol/v025/index.js';
import { createReplyFold, initialReplyState, reduceReply } from '../../../../src/surfaces/v025/reply/index.js';
import { MARKDOWN_TEXT } from './markdown-text.js';
import { artifact, bailian, options, readText, run, spec, status, submitted, tool } from './support.js';

const FINAL_META = { metadata: { iac_code: { assistantFinal: { complete: true } } } };
const word = fc.string({ minLength: 1, maxLength: 8 });

/** iac-code pipeline updates: one envelope or a batch, of steps, text, tool calls and candidates. */
const where = fc.constantFrom<Record<string, unknown>>(
  { scope: 'step', step: { id: 'plan', runId: 'step-plan-1', index: 1, total: 2 } },
  { scope: 'candidate', candidate: { id: 'c0', runId: 'cand-0', index: 0 } },
  { scope: 'candidate', candidate: { id: 'c1', runId: 'cand-1', index: 1, name: 'SAE' } },
);
const candidateWhere = fc.constantFrom<Record<string, unknown>>(
  { scope: 'candidate', candidate: { id: 'c0', runId: 'cand-0', index: 0 } },
  { scope: 'candidate', candidate: { id: 'c0', runId: 'cand-0-2', index: 0 } },
  { scope: 'candidate', candidate: { id: 'c1', runId: 'cand-1', index: 1, name: 'SAE' } },
);
const pipelineEnvelope = fc.oneof(
  fc.tuple(word, where).map(([text, at]) => ({ eventType: 'text_delta', data: { text }, ...at })),
  where.map((at) => ({ eventType: 'tool_started', data: {}, ...at })),
  where.map((at) => ({ eventType: 'candidate_completed', data: {}, ...at })),
  // A candidate's start (a restart too, under a new run) and the files it says it wrote.
  candidateWhere.map((at) => ({ eventType: 'candidate_started', data: {}, ...at })),
  fc
    .tuple(fc.constantFrom('a1', 'a2', 'f1', 'f2', 'f3'), candidateWhere)
    .map(([artifactId, at]) => ({ eventType: 'artifact_created', data: { artifactId }, ...at })),
  fc.constant({ eventType: 'step_started', data: { name: 'plan' }, step: { id: 'plan', runId: 'step-plan-1', index: 1, total: 2 } }),
);
const pipelineUpdate = (state: TaskState, envelopes: Record<string, unknown>[]): StreamResponse => ({
  statusUpdate: {
    taskId: 'T',
    contextId: 'C',
    status: { state },
    metadata: { iac_code: envelopes.length === 1 ? { pipeline: envelopes[0] } : { pipelineBatch: { events: envelopes } } },
  },
});

const step: fc.Arbitrary<StreamResponse> = fc.oneof(
  fc.array(pipelineEnvelope, { minLength: 1, maxLength: 4 }).map((envelopes) => pipelineUpdate('TASK_STATE_WORKING', envelopes)),
  fc.tuple(word, fc.constantFrom('m1', 'm2', 'm3')).map(([text, id]) => status('TASK_STATE_WORKING', text, {}, id)),
  fc.constant(tool),
  fc.constant(status('TASK_STATE_WORKING', undefined, { metadata: { iac_code: { usage: { totalTokens: 1 } } } })),
  fc
    .tuple(fc.constantFrom('a1', 'a2'), word, fc.boolean(), fc.boolean())
    .map(([id, text, append, lastChunk]) => artifact(id, [{ text }], { append, lastChunk })),
  fc.constantFrom<StreamResponse>(
    artifact('f1', [{ url: 'iac-code-artifact://f1/main.tf', filename: 'main.tf', mediaType: 'text/plain', metadata: { byteSize: 14 } }], {
      lastChunk: true,
    }),
    artifact('f2', [{ raw: Buffer.from('x = 1\n').toString('base64'), filename: 'a.tf', mediaType: 'text/plain' }, { data: { k: [1, 2] } }], {
      lastChunk: true,
    }),
    artifact('f3', [{ url: 'https://example.com/r.pdf', filename: 'r.pdf' }], { lastChunk: true }),
  ),
);

const ending: fc.Arbitrary<StreamResponse[]> = fc.oneof(
  fc
    .constantFrom<TaskState>('TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED')
    .map((state) => [status(state)]),
  fc
    .tuple(fc.constantFrom<TaskState>('TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_REJECTED'), word)
    .map(([state, text]) => [status(state, text, {}, 'end')]),
  word.map((text) => [status('TASK_STATE_WORKING', text, FINAL_META, 'T-2'), status('TASK_STATE_INPUT_REQUIRED')]),
  fc
    .tuple(fc.constantFrom<TaskState>('TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_FAILED', 'TASK_STATE_COMPLETED'), word)
    .map(([state, prompt]) => [pipelineUpdate(state, [{ eventType: 'input_required', data: { prompt, options: [{ id: 'a', label: 'A' }] } }])]),
  fc.constant<StreamResponse[]>([pipelineUpdate('TASK_STATE_FAILED', [{ eventType: 'step_failed', data: {} }])]),
  fc.constant([] as StreamResponse[]),
);

const turn = fc
  .tuple(fc.boolean(), fc.array(step, { maxLength: 25 }), ending)
  .map(([opening, steps, end]) => [...(opening ? [submitted] : []), ...steps, ...end]);

function fold(out: V025StreamEvent[]) {
  const folder = createReplyFold();
  for (const event of out) folder.add(event);
  return folder.result();
}

/** Each artifact's text as a client that honours `append` builds it up. */
function perArtifact(out: V025StreamEvent[]): Map<string, string> {
  const texts = new Map<string, string>();
  for (const event of out) {
    if (event.kind !== 'artifact-update') continue;
    const text = event.artifact.parts.map((part) => (part.kind === 'text' ? part.text : `<${part.kind}>`)).join('');
    const id = event.artifact.artifactId;
    texts.set(id, (event.append === true ? (texts.get(id) ?? '') : '') + text);
  }
  return texts;
}

describe('message/send is the fold of message/stream', () => {
  it('bailian: the same text, one reply artifact, every part text, one final status last', () => {
    fc.assert(
      fc.property(turn, (events) => {
        const out = run(events, options(bailian));
        const result = fold(out);
        // A turn with no event at all is answered with a JSON-RPC error, in both modes.
        if (events.length === 0) {
          expect(out).toEqual([]);
          return;
        }
        expect(result?.kind).toBe('task');
        if (result?.kind !== 'task') return;
        const sent = (result.artifacts ?? [])
          .flatMap((a) => a.parts)
          .map((part) => (part.kind === 'text' ? part.text : ''))
          .join('');
        expect(sent).toBe(readText(out));
        expect(result.artifacts?.length ?? 0).toBeLessThanOrEqual(1);
        expect(out.flatMap((event) => (event.kind === 'artifact-update' ? event.artifact.parts : [])).every((part) => part.kind === 'text')).toBe(
          true,
        );
        expect(out.filter((event) => event.kind === 'status-update' && event.final)).toEqual([out.at(-1)]);
        expect(result.status).toEqual((out.at(-1) as { status: unknown }).status);
        const chunks = out.filter((event) => event.kind === 'artifact-update');
        expect(chunks.filter((event) => event.lastChunk)).toEqual(chunks.length > 0 ? [chunks.at(-1)] : []);
        // No file is lost, whether it was held for a pipeline candidate or not.
        for (const [id, shown] of [
          ['f2', 'x = 1'],
          ['f3', 'https://example.com/r.pdf'],
        ] as const) {
          if (events.some((event) => 'artifactUpdate' in event && event.artifactUpdate.artifact.artifactId === id))
            expect(readText(out)).toContain(shown);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('plain 0.2.5: every artifact folds to what the stream built up', () => {
    fc.assert(
      fc.property(turn, (events) => {
        const out = run(events, options(spec));
        const result = fold(out);
        if (result?.kind !== 'task') return;
        const streamed = perArtifact(out);
        for (const folded of result.artifacts ?? []) {
          const text = folded.parts.map((part) => (part.kind === 'text' ? part.text : `<${part.kind}>`)).join('');
          expect(text).toBe(streamed.get(folded.artifactId));
        }
        expect(out.filter((event) => event.kind === 'status-update' && event.final)).toEqual([out.at(-1)]);
      }),
      { numRuns: 300 },
    );
  });

  it('every token of a message-per-token turn is read exactly once, in order, whether or not the agent sends it all again at the end', () => {
    // Some longer than the least a repeat of the reply's last pieces must hold (8 characters), said more than once.
    const token = fc.constantFrom(
      ' the',
      ' VPC',
      '.',
      '\n',
      'Create',
      ' a',
      '1',
      '```',
      'yaml',
      ',',
      '部署',
      '。',
      'ha',
      'Deploy',
      'ment',
      ' ',
      'All tests passed.',
      ' deployment',
      '可用区：',
      'Running',
      // Markdown blocks as whole messages and as a model's pieces of a line.
      '## Plan',
      '| a | b |',
      '|',
      '---',
      '> note',
      '#',
      '>',
      // Chinese after a heading or a quote: a line of its own after a whole one (ReplyState.blockLine).
      '专有网络已创建',
    );
    const progress = fc.constantFrom([], ['Let me check.'], ['正在查询。'], ['Checking the VPC quotas'], ['Validating template', '正在校验模板']);
    fc.assert(
      fc.property(
        fc.array(token, { minLength: 1, maxLength: 30 }),
        fc.constantFrom('none', 'message', 'artifact'),
        progress,
        (tokens, ending, before) => {
          const whole = tokens.join('');
          const closing =
            ending === 'message'
              ? [status('TASK_STATE_COMPLETED', whole, {}, 'final')]
              : ending === 'artifact'
                ? [artifact('answer', [{ text: whole }]), status('TASK_STATE_COMPLETED')]
                : [status('TASK_STATE_COMPLETED')];
          const said = [...before, ...tokens];
          const events = [submitted, ...said.map((t, i) => status('TASK_STATE_WORKING', t, {}, `m${i}`)), ...closing];
          expect(readText(run(events)), JSON.stringify(said)).toSatisfy((read: string) => isWithLineBreaksAt(read, said));
        },
      ),
      { numRuns: 300 },
    );
  });
});

/**
 * Whether `read` is the tokens joined, with nothing lost, changed or moved: at most a line break added where
 * one token ends and the next begins (the reducer starts a line where a boundary reads like a new message).
 */
function isWithLineBreaksAt(read: string, tokens: readonly string[]): boolean {
  const whole = tokens.join('');
  const boundaries = new Set<number>();
  let length = 0;
  for (const token of tokens) boundaries.add((length += token.length));
  let at = 0;
  for (let index = 0; index < read.length; index++) {
    const char = read.charAt(index);
    if (char === whole.charAt(at)) at++;
    else if (!(char === '\n' && boundaries.has(at))) return false;
  }
  return at === whole.length;
}

describe('a Markdown answer cut into tokens anywhere', () => {
  it('reads back as the model wrote it, in message/stream and in message/send', () => {
    const chars = [...MARKDOWN_TEXT];
    const cuts = fc.uniqueArray(fc.integer({ min: 1, max: chars.length - 1 }), { minLength: 1, maxLength: 120 });
    fc.assert(
      fc.property(cuts, (at) => {
        const bounds = [0, ...at.sort((a, b) => a - b), chars.length];
        const pieces = bounds.slice(1).map((end, index) => chars.slice(bounds[index], end).join(''));
        const out = run([
          submitted,
          ...pieces.map((text, index) => status('TASK_STATE_WORKING', text, {}, `m${index}`)),
          status('TASK_STATE_COMPLETED'),
        ]);
        expect(readText(out), JSON.stringify(pieces)).toBe(MARKDOWN_TEXT);
        const result = fold(out);
        const sent =
          result?.kind === 'task' ? (result.artifacts ?? []).flatMap((a) => a.parts).map((part) => (part.kind === 'text' ? part.text : '')) : [];
        expect(sent.join(''), JSON.stringify(pieces)).toBe(MARKDOWN_TEXT);
      }),
      { numRuns: 300 },
    );
  });
});

describe('the reply measures kept as it grows', () => {
  it('shownDense and shownLast always describe the shown text exactly', () => {
    const spaced = fc.stringMatching(/^[ \n\ta-z]{0,6}$/);
    fc.assert(
      fc.property(fc.array(fc.tuple(spaced, fc.constantFrom('m1', 'm2')), { maxLength: 20 }), (chunks) => {
        let state = initialReplyState();
        for (const [text, id] of [['', 'm1'] as const, ...chunks]) {
          state = reduceReply(state, text === '' ? submitted : status('TASK_STATE_WORKING', text, {}, id), options(bailian)).state;
          expect(state.shownDense).toBe(state.shown.replace(/\s/g, '').length);
          expect(state.shownLast).toBe(state.shown.slice(-1));
        }
      }),
      { numRuns: 300 },
    );
  });
});
