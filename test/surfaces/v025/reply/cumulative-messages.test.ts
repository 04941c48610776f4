/**
 * Agents whose working messages each hold the whole text so far (DashScope/Qwen with `incremental_output=false`
 * forwarded chunk by chunk, each a message of its own; a message updated in place under one id): a Bailian user
 * reads the text once, laid out as the agent wrote it. And agents that flush their output by line or by time
 * window, whose chunk may open with the previous chunk's line: lines of code and table rows they repeat are
 * read as often as they wrote them.
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import { readText, run, status, submitted, tool } from './support.js';

const working = (texts: readonly string[], id?: string): StreamResponse[] =>
  texts.map((text, at) => status('TASK_STATE_WORKING', text, {}, id ?? `w${at}`));
const done = status('TASK_STATE_COMPLETED');
const read = (events: StreamResponse[]): string => readText(run([submitted, ...events, done]));
/** Each message the whole text up to the end of one of `pieces`. */
const soFar = (pieces: readonly string[]): string[] => pieces.map((_, at) => pieces.slice(0, at + 1).join(''));

const SUMMARY =
  'Here is the deployment summary:\n| Resource | Status |\n|---|---|\n| VPC | Available |\n| VSwitch | Available |\nAll resources are ready.';
const PLAN = [
  '## 部署',
  '方案\n\n我将在华东1（杭州）创建以下资源：\n\n| ',
  '资源 | 类型 |\n|---|---|\n| 专有网络 | ALIYUN::ECS::VPC |\n\n步骤如下：\n1. 创建专有网络 VPC。\n',
  '2. 创建两个交换机。\n\n执行 `aliyun ros CreateStack` ',
  '即可部署。',
];

describe('messages that each hold the whole text so far, each its own id', () => {
  it('flushed by line: each line once, with no blank line after it (a table still renders)', () => {
    const lines = SUMMARY.split(/(?<=\n)/u);
    expect(read(working(soFar(lines)))).toBe(SUMMARY);
    expect(read(working(['Created the VPC vpc-123.\n', 'Created the VPC vpc-123.\nCreated the vSwitch vsw-456.']))).toBe(
      'Created the VPC vpc-123.\nCreated the vSwitch vsw-456.',
    );
  });

  it('cut anywhere: no blank said twice (a cell, inline code), no blank line between list items', () => {
    expect(read(working(soFar(PLAN)))).toBe(PLAN.join(''));
    // Closed by the whole text again, or by a status that adds its last words.
    expect(read([...working(soFar(PLAN)), status('TASK_STATE_COMPLETED', PLAN.join(''), {}, 'final')])).toBe(PLAN.join(''));
    expect(read([...working(soFar(PLAN.slice(0, -1))), status('TASK_STATE_COMPLETED', PLAN.join(''), {}, 'final')])).toBe(PLAN.join(''));
  });

  it('a heading shorter than a few words, then more: the heading once', () => {
    expect(read(working(['## 部署', '## 部署方案', '## 部署方案\n\n我将创建以下资源']))).toBe('## 部署方案\n\n我将创建以下资源');
    expect(read(working(['Plan:\n', '# VPC', '# VPC and vSwitch']))).toBe('Plan:\n# VPC and vSwitch');
  });

  it('a word said twice, shorter than a few words, is still said twice (the reason for the minimum)', () => {
    expect(read(working(['1', '1.5 GB']))).toBe('11.5 GB');
    expect(read(working(['ha', 'haha']))).toBe('hahaha');
    // A `#` that is no heading at a line's start; a short line the agent writes twice.
    expect(read(working(['C', 'C#']))).toBe('CC#');
    expect(read(working(['检查项：\n', '- 配额\n', '- 配额\n- 网络\n']))).toBe('检查项：\n- 配额\n- 配额\n- 网络\n');
  });

  it('a code block restated from its opening fence is restated: the block once', () => {
    const code = ['Run:\n', '```python\nimport os\n', '```python\nimport os\nimport sys\n', '```python\nimport os\nimport sys\n```'];
    expect(read(working(code))).toBe('Run:\n```python\nimport os\nimport sys\n```');
  });
});

describe("chunks flushed by line or by time window that open with the previous chunk's line", () => {
  it('inside a code block: every line the agent wrote, as often as it wrote it', () => {
    const chunks = ['```python\n', 'retry(connect)\n', 'retry(connect)\nretry(connect)\n', 'print("done")\n```'];
    expect(read(working(chunks))).toBe(chunks.join(''));
    // Said again whole, as the last two chunks were, it is no repeat either.
    const twice = ['```python\n', 'retry(connect)\n', 'retry(connect)\n', 'retry(connect)\nretry(connect)\n', '```'];
    expect(read(working(twice))).toBe(twice.join(''));
  });

  it('inside a table: every row the agent wrote, also rows that read the same', () => {
    const rows = ['| Month | Cost |\n|---|---|\n', '| Jan | 100 |\n', '| Feb | 100 |\n', '| Jan | 100 |\n| Feb | 100 |\n| Mar | 120 |\n'];
    expect(read(working(rows))).toBe(rows.join(''));
  });

  it('in a list: every item the agent wrote, as often as it wrote it', () => {
    const items = ['Checks:\n', '- quota of ECS\n', '- quota of VPC\n', '- quota of VPC\n- quota of SLB\n'];
    expect(read(working(items))).toBe(items.join(''));
    // Restated from the list's first item, or from before it, it is restated.
    expect(read(working(['Checks:\n', '- quota of ECS\n', '- quota of ECS\n- quota of VPC\n']))).toBe('Checks:\n- quota of ECS\n- quota of VPC\n');
  });

  it('prose restated from a whole line is still restated (the answer sent again with more)', () => {
    const progress = ['Checking quotas.\n', 'Quota OK for VPC and ECS.\n', 'Quota OK for VPC and ECS.\nDeploying now.'];
    expect(read(working(progress))).toBe('Checking quotas.\nQuota OK for VPC and ECS.\nDeploying now.');
  });
});

describe('a message updated in place as it grows, under one id', () => {
  const TEXT = 'The stack vpc-demo was created in cn-hangzhou. It has 1 VPC and 2 vSwitches.';
  const grown = [20, 47, TEXT.length].map((end) => TEXT.slice(0, end));

  it('reads as its text, once', () => {
    expect(read(working(grown, 'm1'))).toBe(TEXT);
    // Sent again as it stands: nothing new.
    expect(read(working([...grown, TEXT], 'm1'))).toBe(TEXT);
    // After a tool call a new segment begins: its text is its own.
    expect(read([...working(grown, 'm1'), tool, ...working(['Next: check.', 'Next: check. All good.'], 'm1')])).toBe(
      `${TEXT}\nNext: check. All good.`,
    );
  });

  it('deltas under one id (iac-code) still run on as they came, also one that opens as the message did', () => {
    expect(read(working(['Creating the ', 'VPC now.', ' Creating the vSwitch.'], 'm1'))).toBe('Creating the VPC now. Creating the vSwitch.');
    // Shorter than a few words, the same delta again is said again.

    expect(read(working(['OK', 'OK'], 'm1'))).toBe('OKOK');
  });
});
