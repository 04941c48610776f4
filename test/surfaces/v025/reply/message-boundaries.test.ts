/**
 * Where one agent message meets the next, as a Bailian user reads it (text/plain only): a file, a link or
 * data between messages stands on lines of its own; whole progress messages, each its own id, start lines
 * of their own, while a model's tokens still run together as it wrote them; the text parts of one message
 * meet as two messages do, and an artifact's text parts stay joined exactly.
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../../src/model/index.js';
import { carriesOn } from '../../../../src/surfaces/v025/reply/running-text.js';
import { artifact, readText, run, status, submitted } from './support.js';

const working = (texts: readonly string[]): StreamResponse[] => texts.map((text, at) => status('TASK_STATE_WORKING', text, {}, `w${at}`));
const withParts = (state: 'TASK_STATE_WORKING' | 'TASK_STATE_COMPLETED', parts: Record<string, unknown>[], messageId: string): StreamResponse => ({
  statusUpdate: { taskId: 'T', contextId: 'C', status: { state, message: { messageId, role: 'ROLE_AGENT', parts } } },
});
const done = status('TASK_STATE_COMPLETED');
/** Whole messages a line each; after a table's row, a sentence after a blank line, or it would read as a row (blank-after-blocks.test.ts). */
const joinedAsShown = (texts: readonly string[]): string =>
  texts.reduce((shown, text) => `${shown}${/\|$/u.test(shown) && !text.startsWith('|') ? '\n\n' : '\n'}${text}`);
const read = (events: StreamResponse[]): string => readText(run([submitted, ...events, done]));

const data = { data: { step: 1 } };
const DATA = '```json\n{\n  "step": 1\n}\n```';
const file = (name: string) => ({ raw: Buffer.from(`content of ${name}\n`).toString('base64'), filename: name, mediaType: 'text/plain' });
const FILE = (name: string) => `${name}\n\`\`\`hcl\ncontent of ${name}\n\`\`\``;
const link = { url: 'https://example.com/x.pdf', filename: 'x.pdf', mediaType: 'application/pdf' };

describe('a file, a link or data in working messages between text messages', () => {
  it('stands on lines of its own, and the text after it starts a new line', () => {
    const events = [
      status('TASK_STATE_WORKING', 'Calling the tool', {}, 'w0'),
      withParts('TASK_STATE_WORKING', [data], 'w1'),
      withParts('TASK_STATE_WORKING', [file('main.tf')], 'w2'),
      withParts('TASK_STATE_WORKING', [file('vars.tf')], 'w3'),
      status('TASK_STATE_WORKING', 'and then', {}, 'w4'),
      withParts('TASK_STATE_WORKING', [link], 'w5'),
      status('TASK_STATE_WORKING', 'more text', {}, 'w6'),
      withParts('TASK_STATE_COMPLETED', [{ text: 'Done.' }, data], 'end'),
    ];
    const expected = [
      'Calling the tool',
      DATA,
      FILE('main.tf'),
      FILE('vars.tf'),
      'and then',
      'x.pdf: https://example.com/x.pdf',
      'more text',
      'Done.',
      DATA,
    ];
    expect(readText(run([submitted, ...events]))).toBe(expected.join('\n'));
  });

  it('two data parts in a row open two blocks, not "``````json"', () => {
    expect(read([withParts('TASK_STATE_WORKING', [data], 'a'), withParts('TASK_STATE_WORKING', [data], 'b')])).toBe(`${DATA}\n${DATA}`);
  });

  it('a message that opens or closes with one: the part on its own lines, its text as it came', () => {
    const events = [
      status('TASK_STATE_WORKING', 'Looking', {}, 'w0'),
      withParts('TASK_STATE_WORKING', [link, { text: 'is the report' }], 'w1'),
      withParts('TASK_STATE_WORKING', [{ text: ' and' }, link], 'w2'),
      status('TASK_STATE_WORKING', 'its copy', {}, 'w3'),
    ];
    const url = 'x.pdf: https://example.com/x.pdf';
    expect(read(events)).toBe(`Looking\n${url}\nis the report and\n${url}\nits copy`);
  });
});

describe('whole progress messages, each its own id', () => {
  it('start lines of their own: capitals that open words, list items, status marks, lines that open alike', () => {
    expect(read(working(['Creating VPC', 'Creating ECS', 'Creating RDS', 'All resources created.']))).toBe(
      'Creating VPC\nCreating ECS\nCreating RDS\nAll resources created.',
    );
    expect(read(working(['Here are the steps', '1. Create the VPC', '2. Create the vSwitch', '- check the quota', '• done']))).toBe(
      'Here are the steps\n1. Create the VPC\n2. Create the vSwitch\n- check the quota\n• done',
    );
    expect(read(working(['VPC created', '✅ ECS created', '⚠️ RDS quota low', '❌ SLB failed']))).toBe(
      'VPC created\n✅ ECS created\n⚠️ RDS quota low\n❌ SLB failed',
    );
    expect(read(working(['步骤如下：', '1. 创建专有网络', '2. 创建交换机']))).toBe('步骤如下：\n1. 创建专有网络\n2. 创建交换机');
    expect(read(working(['Here are the steps.', '1. Create the VPC.', '2) Deploy']))).toBe('Here are the steps.\n1. Create the VPC.\n2) Deploy');
    expect(read(working(['已创建专有网络 vpc-123', '已创建交换机 vsw-456']))).toBe('已创建专有网络 vpc-123\n已创建交换机 vsw-456');
    expect(read(working(['正在分析需求', '正在生成模板', '正在校验模板']))).toBe('正在分析需求\n正在生成模板\n正在校验模板');
    expect(read(working(['进度 1/3', '进度 2/3', '进度 3/3']))).toBe('进度 1/3\n进度 2/3\n进度 3/3');
    // A sentence's tokens that open alike, punctuation after the opening, go on (send-equals-stream's Markdown cut anywhere).
    expect(read(working(['专有网络已', '创建，交换机 vsw-1 已', '创建。\n> 注意']))).toBe('专有网络已创建，交换机 vsw-1 已创建。\n> 注意');
  });

  /** Pairs a review found running together (each started a line before cc0e65e). */
  const REVIEWED: ReadonlyArray<readonly [string, string]> = [
    ['Creating VPC', 'VPC created'],
    ['Created vpc-123', 'ECS instance created'],
    ['vsw-456', 'RDS instance creating'],
    ['Created VPC', 'OK, next'],
    ['Created VPC (vpc-123)', '2. Create vSwitch'],
    ['创建专有网络（vpc-1）', '2. 创建交换机'],
    ['Created `vpc-1`', '- Next step'],
    ['Usage 80%', '- Next'],
  ];

  it.each(REVIEWED)('%j then %j: an acronym and a lower-case word, or a list item after closing punctuation, starts a line', (before, after) => {
    expect(carriesOn(before.charAt(before.length - 1), after, { text: before })).toBe(false);
    expect(read(working([before, after]))).toBe(`${before}\n${after}`);
  });

  it("a model's tokens still run together as it wrote them", () => {
    // A number split before a full stop is no list item; an emoji token has no words with it; a word piece is one word.
    expect(read(working(['The answer is 4', '2. Next', ' we deploy.']))).toBe('The answer is 42. Next we deploy.');
    expect(read(working(['部署完成', '✅', '，下一步']))).toBe('部署完成✅，下一步');
    expect(read(working(['The VPC', 's are ready', ' on GPT', '-4o', ' and S3', 'Bucket']))).toBe('The VPCs are ready on GPT-4o and S3Bucket');
    // Chinese with Latin words in it, and tokens that begin with the same characters but do not open a line.
    expect(read(working(['我来', '帮你用 ', 'Terraform', '部署 ', 'VPC', '后再', '创建交换机。']))).toBe(
      '我来帮你用 Terraform部署 VPC后再创建交换机。',
    );
    expect(read(working(['ha', 'ha', '!', ' 正在', '正在部署']))).toBe('haha! 正在正在部署');
    // Chinese right after a Latin id is how Chinese is written ("交换机 vsw-456已创建"): only lines that open alike tell.
    expect(read(working(['交换机 vsw-456', '已创建成功，', '共 3', '个交换机。']))).toBe('交换机 vsw-456已创建成功，共 3个交换机。');
    // Inside code nothing starts a line, list items and capitals included.
    expect(read(working(['```yaml\nitems:\n', '- name', ': vpc\n', 'Kind', 'Of Thing: x\n```']))).toBe(
      '```yaml\nitems:\n- name: vpc\nKindOf Thing: x\n```',
    );
  });
});

describe('Chinese and Latin where two messages meet', () => {
  /** Whole progress messages in two scripts, each its own id: a line each. */
  const WHOLE: ReadonlyArray<readonly [string, string]> = [
    ['Validating template', '正在校验模板'],
    ['Created VPC (vpc-123)', '正在创建交换机'],
    ['VPC created', '已创建交换机 vsw-456'],
    ['正在校验模板', 'Checking quotas'],
    ['部署完成', 'All resources created.'],
  ];

  it.each(WHOLE)('%j then %j: a message in one script that reads as a whole one starts a line', (before, after) => {
    expect(carriesOn(before.charAt(before.length - 1), after, { text: before })).toBe(false);
    expect(read(working([before, after]))).toBe(`${before}\n${after}`);
  });

  it("a model's tokens in either script still run together as it wrote them", () => {
    expect(read(working(['正在', '校验', '模板']))).toBe('正在校验模板');
    expect(read(working(['Valid', 'ating', ' the template']))).toBe('Validating the template');
    // A Latin word or acronym among Chinese tokens, and a multi-word Latin piece that holds Chinese too.
    expect(read(working(['使用', 'Terraform', '部署', 'VPC', '后再', 'Alibaba Cloud控制台', '查看。']))).toBe(
      '使用Terraform部署VPC后再Alibaba Cloud控制台查看。',
    );
  });
});

describe('a message that ends in closing punctuation, then words that read as a message of their own', () => {
  /** Each ran on before (`Created VPC (vpc-123)Creating ECS`): the last rule started a line only after a letter or a digit. */
  const CLOSED: ReadonlyArray<readonly [string, string]> = [
    ['Created VPC (vpc-123)', 'Creating ECS'],
    ['Created VPC [vpc-123]', 'ECS instance created'],
    ['See https://help.aliyun.com/docs/', 'Creating VPC'],
    ['Progress 50%', 'Creating ECS'],
    ['（已完成）', 'Creating ECS'],
    ['Created `vpc-1`', 'Creating ECS'],
    ['Named the stack "demo"', 'Creating ECS'],
    ['已创建「专有网络」', 'Checking quotas'],
  ];

  it.each(CLOSED)('%j then %j: a line each', (before, after) => {
    expect(carriesOn(before.charAt(before.length - 1), after, { text: before })).toBe(false);
    expect(read(working([before, after]))).toBe(`${before}\n${after}`);
  });

  it("a model's tokens around closing punctuation still run together as it wrote them", () => {
    for (const texts of [
      // Punctuation first, a lower-case word, a lone word, a blank: what a token cut after `)` goes on with.
      ['Created VPC (vpc', '-123)', ' and ECS at 50', '%', ' of the quota'],
      ['Call f(x', ')', 'and then', ' deploy(x)', ', GetUser', '(id)', ' (see docs)', ' The next step'],
      // Chinese after `）` is how Chinese is written, and a Latin piece with Chinese in it is Chinese text.
      ['在华东1（杭州）', '创建 VPC', '（可选）', 'Terraform 模板已生成。'],
      // `/` outside a URL joins alternatives (`TCP/IP`, `CPU/Memory`); a quote or a backtick after a blank opens.
      ['Allow TCP/', 'IP traffic and CPU/', 'Memory usage', ' under "', 'Creating VPC" and `', 'Terraform apply`'],
      // Inside code nothing starts a line.
      ['```\nrun(x)', 'Then stop\n```'],
    ]) {
      expect(read(working(texts))).toBe(texts.join(''));
    }
  });

  it('Chinese after a whole Latin message that ends in a bracket still starts a line', () => {
    expect(read(working(['Created VPC (vpc-123)', '正在创建交换机']))).toBe('Created VPC (vpc-123)\n正在创建交换机');
  });
});

describe('a label that ends in a colon, then a token that goes on with it', () => {
  it.each([
    ['Status:', 'Running'],
    ['Status:', ' Running'],
    ['可用区：', 'H'],
    ['实例状态：', 'Running', '，可用区：', 'H', '。'],
    ['Status:', 'OK'],
  ])('%j + %j … carries on, with no blank the agent did not send', (...texts: string[]) => {
    expect(read(working(texts))).toBe(texts.join(''));
  });

  it('words that read as a message of their own after a label still start a line', () => {
    for (const texts of [
      ['Note:', 'Creating VPC'],
      ['Note:', 'VPC created'],
      ['步骤如下：', 'Creating VPC'],
      ['Files written:', '/tmp/main.tf'],
    ]) {
      expect(read(working(texts))).toBe(texts.join('\n'));
    }
  });
});

describe('the text parts of one message', () => {
  it('meet as two working messages do: a new sentence starts a line, a word cut in two stays one', () => {
    expect(readText(run([submitted, withParts('TASK_STATE_COMPLETED', [{ text: 'First part.' }, { text: 'Second part.' }], 'end')]))).toBe(
      'First part.\nSecond part.',
    );
    expect(read([withParts('TASK_STATE_WORKING', [{ text: 'Deploy' }, { text: 'ing the ' }, { text: 'stack.' }], 'w')])).toBe('Deploying the stack.');
    expect(read([withParts('TASK_STATE_WORKING', [{ text: '```ts\nget' }, { text: 'User()\n```' }], 'w')])).toBe('```ts\ngetUser()\n```');
    expect(read([withParts('TASK_STATE_WORKING', [{ text: 'Steps:' }, { text: '1. Create the VPC' }, { text: '2. Deploy' }], 'w')])).toBe(
      'Steps:\n1. Create the VPC\n2. Deploy',
    );
  });

  it("of a direct Message reply too; an artifact's text parts, and its appended chunks, stay joined exactly", () => {
    const direct: StreamResponse = { message: { messageId: 'd', role: 'ROLE_AGENT', parts: [{ text: 'Part one.' }, { text: 'Part two.' }] } };
    expect(readText(run([direct]))).toBe('Part one.\nPart two.');
    const parts = artifact('a', [{ text: 'First part.' }, { text: 'Second part.' }]);
    const appended = artifact('a', [{ text: 'Third part.' }], { append: true });
    expect(read([parts, appended])).toBe('First part.Second part.Third part.');
  });
});

describe('Markdown blocks in messages of their own', () => {
  const TABLE = '| Name | Status |\n|---|---|\n| vpc-1 | OK |';
  const TABLE_ZH = '| 名称 | 状态 |\n|---|---|\n| vpc-1 | 正常 |';
  const FENCE = 'Run this:\n```bash\nterraform apply\n```';
  /** A block that opens a message, after text that does not end its line: each ran on before (`Run this```bash`). */
  const OPENS: ReadonlyArray<readonly [string, string]> = [
    ['Run this', '```bash\nterraform apply\n```'],
    ['请执行以下命令', '~~~\nterraform apply\n~~~'],
    ['Summary of the stack', '## Resources'],
    ['部署完成', '## 资源列表'],
    ['Here are the results', TABLE],
    ['资源如下', TABLE_ZH],
    ['Part one done', '---'],
    ['Part one done', '***'],
    ['Important', '> Do not delete the VPC'],
    ['| 1 | 2 |', '| 3 | 4 |'],
    ['Created `vpc-1`', '```bash\nterraform apply\n```'],
  ];

  it.each(OPENS)('%j then %j: the block starts a line', (before, after) => {
    expect(carriesOn(before.charAt(before.length - 1), after, { text: before })).toBe(false);
    expect(read(working([before, after]))).toBe(`${before}\n${after}`);
  });

  /** A message that ends a block, then one that does not go on with it: each ran on before (`…```Then check`). */
  const CLOSES: ReadonlyArray<readonly [string, string]> = [
    [FENCE, 'Then check the output.'],
    [FENCE, 'then check the output.'],
    ['执行：\n```bash\nterraform apply\n```', '然后检查输出。'],
    [FENCE, '1. Check the output'],
    ['| a | b |\n|---|---|\n| 1 | 2 |', 'Table complete, next step'],
    [TABLE_ZH, '以上是资源列表'],
    ['---', 'Part two'],
  ];

  it.each(CLOSES)('%j then %j: what follows the block starts a line', (before, after) => {
    expect(carriesOn(before.charAt(before.length - 1), after, { text: before })).toBe(false);
    expect(read(working([before, after]))).toBe(joinedAsShown([before, after]));
  });

  it('whole messages around blocks, in English and Chinese: a line each', () => {
    for (const texts of [
      ['Run this', '```bash\nterraform apply\n```', 'Then check the output.'],
      ['Summary of the stack', '## Resources', 'vpc-1 created'],
      ['Part one done', '---', 'Part two'],
      ['Here are the results', TABLE, 'All resources created.'],
      ['资源如下', TABLE_ZH, '全部创建成功。'],
      ['Run this', '```bash\nls\n```', '```yaml\nkey: 1\n```', '## Next'],
    ]) {
      expect(read(working(texts))).toBe(joinedAsShown(texts));
    }
  });

  it('a status mark or a capitalised label after closing punctuation starts a line', () => {
    for (const texts of [
      ['Created VPC (vpc-123)', '✅ ECS created'],
      ['Progress 50%', '⚠️ Quota low'],
      ['Creating RDS', 'Docs: https://help.aliyun.com/'],
      ['Creating RDS', 'Note, the quota is low'],
      ['Created VPC (vpc-123)', 'Docs: https://help.aliyun.com/'],
    ]) {
      expect(carriesOn(texts[0]!.slice(-1), texts[1]!, { text: texts[0]! }), JSON.stringify(texts)).toBe(false);
      expect(read(working(texts))).toBe(texts.join('\n'));
    }
  });

  it("a model's tokens cut where those marks stand still run together as it wrote them", () => {
    for (const texts of [
      // `#` in a name or an issue number, `>` in an arrow, `|` inside a row being written, a longer fence cut in two.
      ['Written in C', '#', ' and F', '# code', ', see issue ', '#12'],
      ['Then a -', '> b and x =', '> y, so A ', '---', '> B'],
      // A `---` inside a line is no rule, whatever follows: the shown line tells (`A ---`), not the message `---`.
      ['Then A ', '---', 'B and A ', '---', '1'],
      ['| Name ', '| Status |\n|', '---|', '---|\n|vpc', '|OK|'],
      ['````', '`\ncode\n``', '```'],
      // An emphasis of `*` or `_` is no rule.
      ['This is ', '***', 'very', '***', ' important; ', '___', 'so', '___', ' is this.'],
      // Inside code nothing starts a line: YAML front matter, a heading, a table, a quote.
      ['```markdown\n', '---', '\ntitle: x\n', '---', '\n', '## Resources', '\n| a |', '| b |', '\n', '> quoted', '\n```'],
      // A label's value and a status mark's emoji token.
      ['部署完成 (vpc-1)', '✅', '，下一步'],
    ]) {
      expect(read(working(texts)), JSON.stringify(texts)).toBe(texts.join(''));
    }
  });
});

describe('Markdown blocks in the text parts of one message', () => {
  const parts = (...texts: string[]) => texts.map((text) => ({ text }));
  it('a block starts a line, and what follows it too, in a completed status and a direct Message', () => {
    const texts = ['Run this', '```bash\nterraform apply\n```', 'Then check the output.'];
    expect(readText(run([submitted, withParts('TASK_STATE_COMPLETED', parts(...texts), 'end')]))).toBe(texts.join('\n'));
    const direct: StreamResponse = { message: { messageId: 'd', role: 'ROLE_AGENT', parts: parts(...texts) } };
    expect(readText(run([direct]))).toBe(texts.join('\n'));
    const table = ['以下是资源列表', '| 名称 | 状态 |\n|---|---|\n| vpc-1 | 正常 |', '全部创建成功。'];
    expect(readText(run([submitted, withParts('TASK_STATE_COMPLETED', parts(...table), 'end')]))).toBe(joinedAsShown(table));
  });

  it('a `---` inside a line of parts is no rule, as between messages: the line shown so far tells', () => {
    const texts = ['Then A ', '---', 'B and A ', '---', '1'];
    expect(readText(run([submitted, withParts('TASK_STATE_COMPLETED', parts(...texts), 'end')]))).toBe(texts.join(''));
  });
});
