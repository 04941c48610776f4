/**
 * A short heading streamed after a blank lead (`\n\n## 部署方案\n`), then an input-required message that says the
 * heading again and asks: the heading is the answer's first words (reply-artifact.ts, blankSoFar), and a heading
 * may be restated although it is short (rules.ts, restatesHeading). The user reads the heading once.
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import { artifact, bailian, options, shownAlike, status, submitted } from './support.js';

const HEADING = '## 部署方案\n';
const QUESTION = '要部署到华东1吗？';

const streamed = (kind: 'artifact' | 'one id', chunks: string[]): StreamResponse[] =>
  kind === 'artifact'
    ? chunks.map((text, at) => artifact('answer', [{ text }], { append: at > 0, lastChunk: at === chunks.length - 1 }))
    : chunks.map((text) => status('TASK_STATE_WORKING', text, {}, 'answer'));

const read = (events: StreamResponse[]): string => shownAlike([submitted, ...events], options(bailian));

describe('a short heading streamed after a blank lead, then restated with a question', () => {
  for (const kind of ['artifact', 'one id'] as const)
    for (const chunks of [['\n\n', HEADING], [`\n\n${HEADING}`]])
      it(`${kind}, chunks ${JSON.stringify(chunks)}: the heading once, then the question`, () => {
        const asked = status('TASK_STATE_INPUT_REQUIRED', `${HEADING}${QUESTION}`, {}, 'question');
        const text = read([...streamed(kind, chunks), asked]);
        expect(text.split('部署方案')).toHaveLength(2);
        expect(text).toBe(`\n\n${HEADING}${QUESTION}`);
      });
});
