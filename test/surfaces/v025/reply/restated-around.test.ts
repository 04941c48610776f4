/**
 * An agent that gathers the text it streams and sends it whole at the end, without the files and progress
 * lines it sent between (restated-around.ts): the answer is read once. A closing message that leaves a word
 * out of a sentence, or one that words came after, is no restatement and is shown.
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import { artifact, readText, run, status, submitted } from './support.js';

const tokens = (texts: string[], prefix: string): StreamResponse[] =>
  texts.map((text, at) => status('TASK_STATE_WORKING', text, {}, `${prefix}${at}`));
const file = artifact(
  'tf',
  [{ raw: Buffer.from('resource "alicloud_vpc" "main" {}\n').toString('base64'), filename: 'main.tf', mediaType: 'text/plain' }],
  {
    lastChunk: true,
  },
);
const FILE_READ = 'main.tf\n```hcl\nresource "alicloud_vpc" "main" {}\n```';
const done = (text: string): StreamResponse => status('TASK_STATE_COMPLETED', text, {}, 'end');

describe('the whole answer said again at the end, without what came between its pieces', () => {
  const before = tokens(['I generated ', 'the template below.'], 'b');
  const after = tokens(['Deploy it ', 'with `aliyun ros CreateStack`.'], 'a');
  const whole = 'I generated the template below.\nDeploy it with `aliyun ros CreateStack`.';
  const read = `I generated the template below.\n${FILE_READ}\nDeploy it with \`aliyun ros CreateStack\`.`;

  it('a file between: read once, as a closing message or a closing artifact', () => {
    expect(readText(run([submitted, ...before, file, ...after, done(whole)]))).toBe(read);
    const restated = artifact('answer', [{ text: whole }], { lastChunk: true });
    expect(readText(run([submitted, ...before, file, ...after, restated, done('')]))).toBe(read);
  });

  it('a progress line between: read once', () => {
    const progress = status('TASK_STATE_WORKING', 'Validating template', {}, 'p');
    const answer = 'The plan has 3 resources.\nValidating template\nIt costs about ¥120 a month.';
    const turn = [...tokens(['The plan ', 'has 3 resources.'], 'b'), progress, ...tokens(['It costs ', 'about ¥120 a month.'], 'a')];
    expect(readText(run([submitted, ...turn, done('The plan has 3 resources. It costs about ¥120 a month.')]))).toBe(answer);
  });

  it('replayed from a Task, its files after its messages: read once', () => {
    expect(readText(run([submitted, ...before, ...after, file, done(whole)]))).toBe(
      `I generated the template below.\nDeploy it with \`aliyun ros CreateStack\`.\n${FILE_READ}`,
    );
  });

  it('a word left out of a sentence is no restatement: shown', () => {
    const turn = tokens(['The stack ', 'is not ', 'ready yet.'], 't');
    expect(readText(run([submitted, ...turn, done('The stack ready yet.')]))).toBe('The stack is not ready yet.\nThe stack ready yet.');
  });

  it('words after what it says again: shown again, last', () => {
    const next = status('TASK_STATE_WORKING', 'Next check.', {}, 'n');
    const turn = [...tokens(['Check one: ', 'PASS.'], 'c'), file, next];
    expect(readText(run([submitted, ...turn, done('Check one: PASS.')]))).toBe(`Check one: PASS.\n${FILE_READ}\nNext check.\nCheck one: PASS.`);
  });
});
