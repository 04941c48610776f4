/**
 * Where two agent messages meet, as a Bailian user reads the turn in message/stream and in message/send,
 * whether the agent streams (the send is the fold of the stream) or answers with one finished Task (its
 * history replayed): two scripts, a label and its value, a URL's names, each said by whole progress
 * messages or by a model's tokens.
 */
import { describe, expect, it } from 'vitest';
import type { Message, StreamResponse, Task } from '../../../../src/model/index.js';
import { createReplyFold } from '../../../../src/surfaces/v025/reply/index.js';
import { MARKDOWN_TEXT } from './markdown-text.js';
import { readText, run, status, submitted } from './support.js';

type Out = ReturnType<typeof run>;

/** What message/send answers for these 0.2.5 events: the text of the folded Task's reply artifact. */
function sent(out: Out): string {
  const fold = createReplyFold();
  for (const event of out) fold.add(event);
  const task = fold.result() as { artifacts?: { parts: { kind: string; text?: string }[] }[] };
  return (task.artifacts ?? [])
    .flatMap((artifact) => artifact.parts)
    .map((part) => part.text ?? '')
    .join('');
}

/** The turn in which the agent says `texts`, each a working message of its own id, then completes. */
function streamed(texts: readonly string[]): StreamResponse[] {
  return [submitted, ...texts.map((text, at) => status('TASK_STATE_WORKING', text, {}, `w${at}`)), status('TASK_STATE_COMPLETED')];
}

/** The same turn as a non-streaming agent answers it: one finished Task, its messages in the history. */
function answered(texts: readonly string[]): StreamResponse[] {
  const said = (text: string, at: number): Message => ({ messageId: `w${at}`, role: 'ROLE_AGENT', parts: [{ text }] });
  const task: Task = {
    id: 'T',
    contextId: 'C',
    status: { state: 'TASK_STATE_COMPLETED' },
    history: [{ messageId: 'u', role: 'ROLE_USER', parts: [{ text: 'deploy' }] }, ...texts.map(said)],
  };
  return [{ task }];
}

/** What the user reads, checked the same in message/stream, message/send over a stream, and message/send over a Task. */
function read(texts: readonly string[]): string {
  const stream = run(streamed(texts));
  const text = readText(stream);
  expect(sent(stream), 'message/send of a streaming agent').toBe(text);
  expect(sent(run(answered(texts))), 'message/send of a non-streaming agent').toBe(text);
  return text;
}

describe('message/stream and message/send read the same where two messages meet', () => {
  it('whole progress messages in Chinese and in Latin script: a line each', () => {
    expect(read(['Validating template', '正在校验模板', 'Checking quotas'])).toBe('Validating template\n正在校验模板\nChecking quotas');
  });

  it("a model's tokens in either script: as it wrote them", () => {
    expect(read(['正在', '校验', '模板', '，', 'Valid', 'ating'])).toBe('正在校验模板，Validating');
  });

  it("whole progress messages after a closing bracket, a URL's `/` or `%`: a line each; tokens around them as written", () => {
    expect(read(['Created VPC (vpc-123)', 'Creating ECS', 'See https://help.aliyun.com/docs/', 'Creating VPC', 'Progress 50%', 'Creating RDS'])).toBe(
      'Created VPC (vpc-123)\nCreating ECS\nSee https://help.aliyun.com/docs/\nCreating VPC\nProgress 50%\nCreating RDS',
    );
    expect(read(['Created VPC (vpc', '-123)', ' at 50', '%', ' of the quota', ' (see docs)', ' The next step'])).toBe(
      'Created VPC (vpc-123) at 50% of the quota (see docs) The next step',
    );
  });

  it('a label, then the token that goes on with it', () => {
    expect(read(['Status:', 'Running', '；可用区：', 'H'])).toBe('Status:Running；可用区：H');
    expect(read(['Status:', ' Running'])).toBe('Status: Running');
  });

  it("a URL's next name, and a camel-cased word the tokens cut at its hump", () => {
    expect(read(['Saved to https://oss.example.com/bucket/', 'Template.yaml'])).toBe('Saved to https://oss.example.com/bucket/Template.yaml');
    expect(read(['Call https://ecs.aliyuncs.com/?Action=', 'Describe', 'Instances', ' to list them.'])).toBe(
      'Call https://ecs.aliyuncs.com/?Action=DescribeInstances to list them.',
    );
    // Tokens under one id whose last one ends the turn (a finished Task keeps such a message once, whole: not replayed here).
    const under = (text: string) => status('TASK_STATE_WORKING', text, {}, 'm');
    const closing = run([
      submitted,
      under('Saved to https://oss.'),
      under('example.com/bucket/'),
      status('TASK_STATE_COMPLETED', 'Template.yaml', {}, 'm'),
    ]);
    expect(sent(closing)).toBe(readText(closing));
    expect(readText(closing)).toBe('Saved to https://oss.example.com/bucket/Template.yaml');
    // A lone word after a message that holds its URL whole reads as a message of its own.
    expect(read(['Opened https://x.com/docs?lang=en', 'Deploying'])).toBe('Opened https://x.com/docs?lang=en\nDeploying');
  });

  /** Whole messages that open or close a Markdown block: each ran on into the one before it (`Run this```bash`, "```Then"). */
  const BLOCKS: ReadonlyArray<readonly string[]> = [
    ['Run this', '```bash\nterraform apply\n```', 'Then check the output.'],
    ['Run this:\n```bash\nterraform apply\n```', 'then check the output.'],
    ['执行：\n```bash\nterraform apply\n```', '然后检查输出。'],
    ['Summary of the stack', '## Resources', 'vpc-1 created'],
    ['部署完成', '## 资源列表'],
    ['Here are the results', '| Name | Status |\n|---|---|\n| vpc-1 | OK |', 'Table complete, next step'],
    ['资源如下', '| 名称 | 状态 |\n|---|---|\n| vpc-1 | 正常 |', '以上是资源列表'],
    ['Part one done', '---', 'Part two'],
    ['Important', '> Do not delete the VPC'],
    ['Created VPC (vpc-123)', '✅ ECS created'],
    ['Creating RDS', 'Docs: https://help.aliyun.com/'],
  ];

  it.each(BLOCKS)('a Markdown block in a message of its own: %j, a line each', (...texts: string[]) => {
    // After a table's row a sentence stands after a blank line, or it would read as a row (blank-after-blocks.test.ts).
    expect(read(texts)).toBe(texts.reduce((shown, text) => `${shown}${shown.endsWith('|') ? '\n\n' : '\n'}${text}`));
  });

  /**
   * A heading or a quote the facade put on a line of its own (a whole message after text), then the next whole
   * message in Chinese or lower-case: run on, it read as part of the heading (`## 资源列表专有网络已创建`).
   */
  const AFTER_BLOCK_LINE: ReadonlyArray<readonly string[]> = [
    ['部署完成', '## 资源列表', '专有网络已创建'],
    ['Summary of the stack', '## Resources', 'created vpc-1 and vsw-1'],
    ['部署完成', '> 注意', '不要删除 VPC'],
    ['Important', '> Keep the VPC', 'then delete the rest'],
  ];

  it.each(AFTER_BLOCK_LINE)('the whole message after a heading or quote line the facade started: %j, a line each', (...texts: string[]) => {
    expect(read(texts)).toBe(texts.join('\n'));
  });

  it('the text parts of one message: a heading or a quote part on a line of its own ends that line too', () => {
    const parts = (texts: readonly string[]): string => {
      const message: Message = { messageId: 'w', role: 'ROLE_AGENT', parts: texts.map((text) => ({ text })) };
      const out = run([
        submitted,
        { statusUpdate: { taskId: 'T', contextId: 'C', status: { state: 'TASK_STATE_WORKING', message } } },
        status('TASK_STATE_COMPLETED'),
      ]);
      expect(sent(out), 'message/send').toBe(readText(out));
      return readText(out);
    };
    expect(parts(['部署完成', '## 资源列表', '专有网络已创建'])).toBe('部署完成\n## 资源列表\n专有网络已创建');
    expect(parts(['Important', '> Keep the VPC', 'then delete the rest'])).toBe('Important\n> Keep the VPC\nthen delete the rest');
    expect(parts(['部署完成\n', '## 资源', '列表'])).toBe('部署完成\n## 资源列表');
  });

  it('a heading or a quote written token by token, on a line the agent started: as it wrote it', () => {
    for (const texts of [
      ['部署完成\n', '## ', '资源', '列表', '\n', '专有网络已创建'],
      ['部署完成\n', '## 资源', '列表', '\n专有网络'],
      ['部署完成\n', '> 注意', '不要删除 VPC'],
    ]) {
      expect(read(texts), JSON.stringify(texts)).toBe(texts.join(''));
    }
    // After a whole heading message, a piece that opens with a blank goes on where the line left off, as the agent wrote it.
    expect(read(['部署完成', '## 资源列表', ' (3)'])).toBe('部署完成\n## 资源列表 (3)');
  });

  it('a heading or a quote the facade put on a fresh line, then the rest of it in pieces: one line, as the agent wrote it', () => {
    // A piece that opens with punctuation, a word's lower-case ending, or a short run of Chinese goes on with the line.
    for (const [head, ...rest] of [
      ['部署完成。', '## 资源', '列表'],
      ['完成。', '> 注意', '：VPC 将被保留。'],
      ['Done.', '> Note', ': the VPC', ' is kept.'],
      ['Summary:', '# Deploy', 'ment report'],
      ['Done.', '### 3', '. Next steps'],
    ] as const) {
      expect(read([head, ...rest])).toBe(`${head}\n${rest.join('')}`);
    }
    // Whole messages after the heading still start their lines.
    expect(read(['部署完成', '## 资源列表', '专有网络已创建'])).toBe('部署完成\n## 资源列表\n专有网络已创建');
  });

  it("a progress line, then the answer's tokens that open with a heading and end its line: the heading is one line", () => {
    // Each token its own message: the facade started a line for the heading, and the next token ends it with its line break.
    for (const [head, ...rest] of [
      ['正在生成报告……', '# 部署', '报告\n', '已创建 3 个资源。'],
      ['正在生成报告……', '# 部署报', '告\n\n', '已创建 3 个资源。'],
      ['正在生成报告……', '## 资源', '列表如下\n', '- vpc-1\n'],
      ['Generating the report...', '## VPC Qu', 'ota Report\n\n', 'You have 3 VPCs.'],
      ['Generating the report...', '## Summ', 'ary of the stack\n', 'All good.'],
      // One word's piece, or two Chinese characters, ending the heading's sentence is still its rest.
      ['Creating VPC', '## What is a V', 'PC?\n', 'A VPC is a private network.'],
      ['Creating VPC', '## Next st', 'eps!\n', 'Open the console.'],
      ['创建中', '## 完成', '啦！\n', '已创建 3 个资源。'],
      ['完成。', '> 注意', '不要删除 VPC\n', '其余资源已释放。'],
    ] as const) {
      expect(read([head, ...rest]), JSON.stringify(rest)).toBe(`${head}\n${rest.join('')}`);
    }
    // A Markdown block or a list item after the heading message is no rest of it, line break or not.
    expect(read(['部署完成', '## 资源列表', '- vpc-1\n'])).toBe('部署完成\n## 资源列表\n- vpc-1\n');
    expect(read(['部署完成', '## 资源列表', '| 名称 | 状态 |\n'])).toBe('部署完成\n## 资源列表\n| 名称 | 状态 |\n');
    // A whole message of several lines after the heading message starts its own line.
    expect(read(['部署完成', '## 资源列表', '专有网络已创建\n交换机已创建'])).toBe('部署完成\n## 资源列表\n专有网络已创建\n交换机已创建');
    // A whole sentence, or a line the boundary rules start anew (a capital after a word), is a message of its own.
    for (const [head, ...rest] of [
      ['Creating VPC', '## Result', 'All 3 resources were created.\n'],
      ['Creating VPC', '## Summary', 'VPC created: vpc-123\n'],
      ['Creating VPC', '> Note', 'The VPC is kept.\n'],
      ['Creating VPC', '## Result', 'Done\n'],
      ['创建中', '## 部署结果', '已创建 3 个资源。\n'],
    ] as const) {
      expect(read([head, ...rest]), JSON.stringify(rest)).toBe(`${head}\n${rest.join('\n')}`);
    }
  });

  it("a model's tokens where those marks stand: as it wrote them", () => {
    for (const texts of [
      ['In C', '#', ' see issue ', '#12', ': a -', '> b, x =', '> y'],
      ['| Name ', '| Status |\n|', '---|', '---|\n| vpc', '-1 | OK |'],
      ['```yaml\n', '---', '\ntitle: x\n```'],
    ]) {
      expect(read(texts), JSON.stringify(texts)).toBe(texts.join(''));
    }
  });

  it('a Markdown answer cut in two anywhere: as the model wrote it', () => {
    const chars = [...MARKDOWN_TEXT];
    for (let at = 1; at < chars.length; at += 1) {
      const pieces = [chars.slice(0, at).join(''), chars.slice(at).join('')];
      expect(read(pieces), JSON.stringify(pieces)).toBe(MARKDOWN_TEXT);
    }
  });
});
