/**
 * An agent whose streamed answer opens with a blank token (a model's first token is often a line break), then asks
 * its question in a message that says the answer again first ("restated, then more": facade-reply.md, Repeat rules).
 * The blank chunk starts no piece a repeat could be said from, but the words after it, in the same artifact or under
 * the same message id, do: the user reads the answer once and the question after it, not the answer twice.
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import { artifact, bailian, options, shownAlike, status, submitted } from './support.js';

const ANSWER = ['The stack was created in cn-hangzhou. ', 'It costs about ¥120 a month.'];
const QUESTION = '要再部署一套到华北2吗？';

const streamed = (kind: 'artifact' | 'one id', chunks: string[]): StreamResponse[] =>
  kind === 'artifact'
    ? chunks.map((text, at) => artifact('answer', [{ text }], { append: at > 0, lastChunk: at === chunks.length - 1 }))
    : chunks.map((text) => status('TASK_STATE_WORKING', text, {}, 'answer'));

const read = (events: StreamResponse[]): string => shownAlike([submitted, ...events], options(bailian));

describe('an answer streamed after a blank first chunk, then restated with a question', () => {
  for (const kind of ['artifact', 'one id'] as const)
    for (const lead of ['\n', ' ', '\n\n'])
      it(`${kind}, first chunk ${JSON.stringify(lead)}: the answer once, then the question`, () => {
        const asked = status('TASK_STATE_INPUT_REQUIRED', `${ANSWER.join('')}\n${QUESTION}`, {}, 'question');
        const text = read([...streamed(kind, [lead, ...ANSWER]), asked]);
        expect(text.split('It costs about ¥120 a month.')).toHaveLength(2);
        expect(text).toBe(`${lead}${ANSWER.join('')}\n${QUESTION}`);
      });
});
