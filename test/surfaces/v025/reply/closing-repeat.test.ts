/**
 * A message that ends the turn (a question, the final answer) and says again the last sentences the reply
 * already ends with: read once, whether the agent streamed those sentences as messages of their own or as an
 * artifact's chunks.
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import { artifact, readText, run, status, submitted } from './support.js';

const chunks = (artifactId: string, texts: readonly string[]): StreamResponse[] =>
  texts.map((text, at) => artifact(artifactId, [{ text }], { append: at > 0, lastChunk: at === texts.length - 1 }));
const working = (texts: readonly string[]): StreamResponse[] => texts.map((text, at) => status('TASK_STATE_WORKING', text, {}, `w${at}`));

describe('a closing message that repeats the last sentences of the reply', () => {
  it('after an artifact that ends with them: shown once, as after tokens of their own', () => {
    const asked = status('TASK_STATE_INPUT_REQUIRED', 'Which region should I use?', {}, 'ask');
    const expected = 'I can deploy it. Which region should I use?';
    expect(readText(run([submitted, ...working(['I can deploy it.', ' Which region', ' should I use?']), asked]))).toBe(expected);
    expect(readText(run([submitted, ...chunks('a', ['I can deploy it. ', 'Which region should I use?']), asked]))).toBe(expected);
    // One chunk, the question its last sentence.
    expect(readText(run([submitted, ...chunks('a', ['I can deploy it. Which region should I use?']), asked]))).toBe(expected);
  });

  it('after a Markdown artifact whose last line it is, and in Chinese', () => {
    const done = status('TASK_STATE_COMPLETED', 'The stack **web** is ready.', {}, 'end');
    expect(readText(run([submitted, ...chunks('ans', ['## Result\n\n', 'The stack **web** ', 'is ready.\n']), done]))).toBe(
      '## Result\n\nThe stack **web** is ready.\n',
    );
    const zh = status('TASK_STATE_INPUT_REQUIRED', '请问部署到哪个地域？', {}, 'ask');
    expect(readText(run([submitted, ...chunks('a', ['可以部署。', '请问部署到哪个地域？']), zh]))).toBe('可以部署。请问部署到哪个地域？');
  });

  it('new words, a word or two said again, or a sentence only its end repeats are still shown', () => {
    const after = (texts: readonly string[], closing: string): string =>
      readText(run([submitted, ...chunks('a', texts), status('TASK_STATE_COMPLETED', closing, {}, 'end')]));
    expect(after(['Step 1 done. OK.'], 'OK.')).toBe('Step 1 done. OK.\nOK.');
    expect(after(['The VPC is ready. Which region should I use?'], 'should I use?')).toBe(
      'The VPC is ready. Which region should I use?\nshould I use?',
    );
    expect(after(['The VPC is ready.'], 'The ECS is ready.')).toBe('The VPC is ready.\nThe ECS is ready.');
    // A working message is running text, where a sentence said twice is said twice.
    const progress = readText(
      run([
        submitted,
        ...chunks('a', ['Checking the stack status...']),
        ...working(['Checking the stack status...']),
        status('TASK_STATE_COMPLETED'),
      ]),
    );
    expect(progress).toBe('Checking the stack status...\nChecking the stack status...');
  });

  it('a result said again after other words is shown again: the user reads it last, not the words in between', () => {
    const result = artifact('check-1', [{ text: 'Result: PASS' }], { lastChunk: true });
    const closing = status('TASK_STATE_COMPLETED', 'Result: PASS', {}, 'end');
    expect(readText(run([submitted, result, ...working(['Next check.']), closing]))).toBe('Result: PASS\nNext check.\nResult: PASS');
    // Said first as a message, then other words: the same.
    const said = status('TASK_STATE_WORKING', 'Result: PASS', {}, 'said');
    expect(readText(run([submitted, said, ...working(['Next check.']), closing]))).toBe('Result: PASS\nNext check.\nResult: PASS');
    // Only files after it (iac-code's text, the file it wrote, its assistantFinal): still a repeat.
    const file = artifact('main', [{ text: 'resource "alicloud_vpc" "main" {}' }], { lastChunk: true });
    expect(readText(run([submitted, said, file, closing]))).toBe('Result: PASS\nresource "alicloud_vpc" "main" {}');
    // Right after it: a repeat, as before.
    expect(readText(run([submitted, result, closing]))).toBe('Result: PASS');
  });

  it('after progress messages, a failure reason that ends like the last one is still said', () => {
    const events = [
      submitted,
      ...working(['Creating stack. Stack creation failed.']),
      status('TASK_STATE_FAILED', 'Stack creation failed.', {}, 'f'),
    ];
    expect(readText(run(events))).toBe('Creating stack. Stack creation failed.\nStack creation failed.');
  });
});
