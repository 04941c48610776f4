/**
 * Two artifacts streamed side by side with progress messages between their chunks, as an a2a-js agent sends
 * them (a first chunk says nothing of its last chunk; later ones are appended, and may never say it either):
 * each artifact reads together, and no artifact's words are shown under the other's heading (open-artifact.ts).
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import { createTurnReply } from '../../../../src/surfaces/v025/reply/index.js';
import { artifact, options, readText, run, status, submitted } from './support.js';

const chunk = (id: string, text: string, extra: Record<string, unknown> = {}): StreamResponse => artifact(id, [{ text }], extra);
const more = (id: string, text: string, last = false): StreamResponse => chunk(id, text, { append: true, ...(last ? { lastChunk: true } : {}) });
const working = (text: string, id: string): StreamResponse => status('TASK_STATE_WORKING', text, {}, id);
const asked = status('TASK_STATE_COMPLETED', '请选择一个方案。', {}, 'end');
const done = status('TASK_STATE_COMPLETED');

/** What the caller has read after each event, streamed. */
function streamed(events: StreamResponse[]): string[] {
  const reply = createTurnReply(options());
  let read = '';
  return events.map((event) => (read += readText(reply.push(event))));
}

/** Plan A's and plan B's chunks in turn, a progress line after each of A's; `last`: their last chunks say so. */
function plans(last: boolean): StreamResponse[] {
  return [
    submitted,
    chunk('a', '## 方案 A\n'),
    working('正在生成方案', 'w1'),
    chunk('b', '## 方案 B\n'),
    more('a', '使用 ECS '),
    working('正在检查配额', 'w2'),
    more('b', '使用 SAE '),
    more('a', '和 RDS。\n', last),
    working('正在估算费用', 'w3'),
    more('b', '无服务器。\n', last),
  ];
}

describe('artifacts streamed side by side, with progress between their chunks', () => {
  const whole = '## 方案 A\n使用 ECS 和 RDS。\n正在生成方案\n## 方案 B\n使用 SAE 无服务器。\n正在检查配额\n正在估算费用\n请选择一个方案。';

  it('each plan reads together under its own heading, the progress between and after them, whether the last chunks say so or not', () => {
    expect(readText(run([...plans(false), asked]))).toBe(whole);
    expect(readText(run([...plans(true), asked]))).toBe(whole);
  });

  it('a first piece that ends under a heading is a first chunk: progress and the next artifact wait for its section', () => {
    const seen = streamed(plans(true).slice(0, 5));
    expect(seen).toEqual(['', '## 方案 A\n', '## 方案 A\n', '## 方案 A\n', '## 方案 A\n使用 ECS ']);
  });

  it('the second plan is shown as soon as the first one ends, the progress held inside it after it', () => {
    const seen = streamed(plans(true));
    expect(seen.at(-3)).toBe('## 方案 A\n使用 ECS 和 RDS。\n正在生成方案\n## 方案 B\n使用 SAE ');
    expect(seen.at(-1)).toBe('## 方案 A\n使用 ECS 和 RDS。\n正在生成方案\n## 方案 B\n使用 SAE 无服务器。\n正在检查配额\n正在估算费用');
  });

  it('nothing is held past the turn: it ends, fails, or breaks off while the second plan waits', () => {
    const early = plans(false).slice(0, 6);
    const shown = '## 方案 A\n使用 ECS \n正在生成方案\n## 方案 B\n正在检查配额';
    expect(readText(run([...early, asked]))).toBe(`${shown}\n请选择一个方案。`);
    expect(readText(run([...early, status('TASK_STATE_FAILED', 'Quota exceeded.', {}, 'f')]))).toBe(`${shown}\nQuota exceeded.`);
    expect(readText(run(early))).toContain(shown);
  });

  it("one artifact alone: a progress line after a heading it wrote, also token by token, waits for the section's first line", () => {
    const alone = [submitted, chunk('a', '## 方案 A\n'), working('正在生成方案', 'w1'), more('a', '使用 ECS。\n'), done];
    expect(readText(run(alone))).toBe('## 方案 A\n使用 ECS。\n正在生成方案');
    const tokens = [submitted, chunk('a', 'Intro.\n', { lastChunk: false }), more('a', '## '), more('a', 'Plan A'), more('a', '\n')];
    expect(readText(run([...tokens, working('Checking quotas', 'w1'), more('a', 'Uses ECS.\n'), done]))).toBe(
      'Intro.\n## Plan A\nUses ECS.\nChecking quotas',
    );
  });

  it('without headings, a progress line after a first piece does not tell it was whole: the other artifact waits for it', () => {
    const events = [
      submitted,
      chunk('a', 'Plan A uses ECS\n'),
      working('Checking quotas', 'w1'),
      chunk('b', 'Plan B uses SAE\n'),
      more('a', 'and RDS.\n'),
      working('Validating template', 'w2'),
      more('b', 'and OSS.\n'),
      done,
    ];
    // At a line's end progress reads between an artifact's lines, as in one artifact streamed alone.
    expect(readText(run(events))).toBe('Plan A uses ECS\nChecking quotas\nand RDS.\nPlan B uses SAE\nValidating template\nand OSS.\n');
  });

  it('whole artifacts with a progress line between them: the second waits one event, as after any first piece', () => {
    const events = [submitted, chunk('x', 'Plan.'), working('Deploying', 'w1'), chunk('y', 'Answer.'), working('Checking', 'w2')];
    expect(streamed(events)).toEqual(['', 'Plan.', 'Plan.\nDeploying', 'Plan.\nDeploying', 'Plan.\nDeploying\nAnswer.\nChecking']);
    expect(readText(run([...events.slice(0, 4), asked]))).toBe('Plan.\nDeploying\nAnswer.\n请选择一个方案。');
  });
});

describe('a whole artifact that ends with a heading (lastChunk left out)', () => {
  it('has the progress after it shown as it comes: only a heading alone reads as a first chunk', () => {
    const events = [
      submitted,
      artifact('plan', [{ text: '# Deployment plan\nVPC, vSwitch, ECS.\n## Next steps\n' }]),
      ...Array.from({ length: 3 }, (_, at) => working(`Creating resource ${at + 1}...`, `w${at}`)),
    ];
    expect(streamed(events).at(-1)).toContain('Creating resource 3...');
  });
});
