/**
 * A turn that completes without a word (no message, no artifact): a Bailian user, who reads the reply's
 * text alone, is told so in the turn's language, as for a silent failure or question (unsaid-end.ts).
 */
import { describe, expect, it } from 'vitest';
import { facadeWords, type FacadeLanguage } from '../../../../src/surfaces/v025/reply/index.js';
import { artifact, options, readText, run, shape, spec, status, submitted, tool } from './support.js';

const inLanguage = (language: FacadeLanguage) => options(undefined, { words: facadeWords(language) });
const done = status('TASK_STATE_COMPLETED');

describe('a turn that completed and said nothing', () => {
  it('is told so, in the turn language, as the reply artifact it would have had', () => {
    const out = run([submitted, done]);
    expect(readText(out)).toBe('The agent finished without a reply.');
    expect(shape(out)).toEqual(['task:submitted', 'artifact:gen-1:last', 'status:completed:final']);
    expect(readText(run([submitted, done], inLanguage('zh')))).toBe('智能体已完成，但没有回复任何内容。');
    expect(readText(run([submitted, done], inLanguage('ja')))).toBe('エージェントは返信せずに処理を終了しました。');
    // Progress without words, a tool call, a status message without text: still nothing said.
    expect(readText(run([submitted, tool, status('TASK_STATE_WORKING'), status('TASK_STATE_COMPLETED', '')]))).toBe(
      'The agent finished without a reply.',
    );
    // A Task that is the whole answer, and holds none.
    expect(readText(run([{ task: { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_COMPLETED' } } }]))).toBe(
      'The agent finished without a reply.',
    );
  });

  it('is not told when anything was shown: words, a file, device commands; nor to a plain 0.2.5 caller', () => {
    expect(readText(run([submitted, status('TASK_STATE_WORKING', 'Done.'), done]))).toBe('Done.');
    expect(readText(run([submitted, status('TASK_STATE_COMPLETED', 'Done.', {}, 'end')]))).toBe('Done.');
    expect(readText(run([submitted, artifact('a', [{ text: 'Result: PASS' }], { lastChunk: true }), done]))).toBe('Result: PASS');
    const commands = status('TASK_STATE_COMPLETED', undefined, { metadata: { bailian: { commands: [{ name: 'light.on' }] } } });
    expect(readText(run([submitted, commands]))).toBe('');
    expect(readText(run([submitted, done], options(spec)))).toBe('');
  });
});
