/**
 * Agents whose working messages each hold the whole text so far (DashScope/Qwen with `incremental_output=false`
 * forwarded chunk by chunk, each a message of its own; a message updated in place under one id): a Bailian user
 * reads the text once, laid out as the agent wrote it, lists and tables included.
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import { readText, run, status, submitted, tool } from './support.js';

const working = (texts: readonly string[], id?: string): StreamResponse[] =>
  texts.map((text, at) => status('TASK_STATE_WORKING', text, {}, id ?? `w${at}`));
/** Each message its own id, named after `prefix` (two model calls' messages). */
const workingAs = (prefix: string, texts: readonly string[]): StreamResponse[] =>
  texts.map((text, at) => status('TASK_STATE_WORKING', text, {}, `${prefix}${at}`));
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

describe('messages that each hold the whole text so far, around lists and tables', () => {
  it('a second model call after a tool call, both answering with lists: each line once', () => {
    const first = soFar(['Deployment plan:\n', '- create the VPC\n', '- create the vSwitch\n']);
    const second = soFar(['- VPC created: vpc-123\n', '- vSwitch created: vsw-456\n', '- ECS created: i-789\n']);
    expect(read([...workingAs('a', first), tool, ...workingAs('b', second)])).toBe(
      'Deployment plan:\n- create the VPC\n- create the vSwitch\n- VPC created: vpc-123\n- vSwitch created: vsw-456\n- ECS created: i-789\n',
    );
  });

  it('a table answer after a table: its header once', () => {
    const first = soFar(['| Resource | Type |\n|---|---|\n', '| VPC | ALIYUN::ECS::VPC |\n']);
    const second = soFar(['| Resource | Status |\n', '|---|---|\n', '| VPC | Available |\n']);
    const text = read([...workingAs('a', first), tool, ...workingAs('b', second)]);
    expect(text.split('| Resource | Status |')).toHaveLength(2);
  });

  it('short list items, and a table with a short Chinese header, flushed by line: each later line once', () => {
    const items = read(working(soFar(['- VPC\n', '- ECS\n', '- SLB\n', '- RDS\n', '- OSS\n'])));
    expect(items.split('- RDS')).toHaveLength(2);
    const rows = ['| 资源 | 状态 |\n', '|---|---|\n', '| 专有网络 | 可用 |\n', '| 交换机 | 可用 |\n', '| 云服务器 | 创建中 |\n'];
    expect(read(working(soFar(rows))).split('| 专有网络 | 可用 |')).toHaveLength(2);
  });

  it('prose restated from a whole line is restated (the answer sent again with more)', () => {
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
