/**
 * What a Bailian user reads (raw 0.2.5 JSON-RPC at the card's url and url + "/stream") of real a2a-js 1.x
 * agents whose turns mix tokens, files and restatements (script-player-agent.ts), against what the agent
 * said: every word once, the same in message/send and message/stream, nothing but text. The agent streams,
 * or announces it does not (the gateway then replays the Task a blocking call answers).
 */
import { TaskState } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import { part, textPart, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { startScriptPlayer, type Script, type Step } from './script-player-agent.js';

const { TASK_STATE_WORKING: WORKING, TASK_STATE_COMPLETED: COMPLETED, TASK_STATE_FAILED: FAILED } = TaskState;

/** A model's tokens, cut inside Chinese words, a table row, a code fence, a surrogate pair, a ZWJ sequence and before a variation selector. */
const MARKDOWN = [
  '## 部署方',
  '案\n\n我将在华东1（杭州）创建以下资源：\n\n',
  '1. 专有网络 VPC\n   - 网段 `10.0.0.0/8`\n   - 交换机 ×2\n',
  '2. 云服务器 ECS\n\n| 资源 | 规格 | 数量 |\n|---|---|---|\n| ECS | ecs.g7.large',
  ' | 2 |\n| RDS | mysql.n2.medium.1 | 1 |\n\n',
  '```hcl\nresource "alicloud_vpc" "main" {\n  cidr_',
  'block = "10.0.0.0/8"\n}\n``',
  '`\n\n部署完成后会显示 ✅',
  ' 标志。预计费用：¥12',
  '0/月 \uD83D',
  '\uDE80\n⚠',
  '\uFE0F 注意配额。👨‍',
  '💻 运维同学请确认。',
];
const TF = '# 专有网络\nresource "alicloud_vpc" "main" {\n  vpc_name   = "演示"\n  cidr_block = "10.0.0.0/8"\n}\n';
const TF_READ = `main.tf\n\`\`\`hcl\n${TF}\`\`\``;
const tfBytes = Buffer.from(TF);
const tf = (from: number, to: number) => part({ $case: 'raw', value: tfBytes.subarray(from, to) }, { filename: 'main.tf', mediaType: 'text/plain' });
const tokens = (pieces: string[], id?: string): Step[] => pieces.map((said) => ({ status: WORKING, said, ...(id ? { id } : {}) }));

const BEFORE = ['I generated ', 'the template below.'];
const AFTER = ['Deploy it ', 'with `aliyun ros CreateStack`.'];
const WHOLE = 'I generated the template below.\nDeploy it with `aliyun ros CreateStack`.';
const withFile = (id?: string): Step[] => [
  ...tokens(BEFORE, id),
  { artifact: 'tf', parts: [tf(0, tfBytes.length)], append: false, last: true },
  ...tokens(AFTER, id),
];

const SCRIPTS: Record<string, Script> = {
  'markdown tokens': { steps: [...tokens(MARKDOWN), { status: COMPLETED }] },
  'markdown tokens under one id': { steps: [...tokens(MARKDOWN, 'm'), { status: COMPLETED }] },
  // The file's first chunk ends inside 网 (bytes 8 to 10).
  'template cut in a character': {
    steps: [
      { status: WORKING, said: '正在生成 Terraform 模板…' },
      { artifact: 'tf', parts: [tf(0, 10)], append: false, last: false },
      { status: WORKING, said: '正在校验模板' },
      { artifact: 'tf', parts: [tf(10, 40)], append: true, last: false },
      { artifact: 'tf', parts: [tf(40, tfBytes.length)], append: true, last: true },
      { status: COMPLETED, said: '模板已生成，请查看 main.tf。' },
    ],
  },
  'restated around a file': { steps: [...withFile(), { status: COMPLETED, said: WHOLE }] },
  'restated around a file under one id': { steps: [...withFile('m'), { status: COMPLETED, said: WHOLE, id: 'm' }] },
  'restated around a file as an artifact': {
    steps: [...withFile(), { artifact: 'answer', parts: [textPart(WHOLE)], append: false, last: true }, { status: COMPLETED }],
  },
  'restated around a progress line': {
    steps: [
      ...tokens(['The plan ', 'has 3 resources.']),
      { status: WORKING, said: 'Validating template' },
      ...tokens(['It costs ', 'about ¥120 a month.']),
      { status: COMPLETED, said: 'The plan has 3 resources. It costs about ¥120 a month.' },
    ],
  },
  'answer in the Task alone': {
    bare: true,
    steps: [
      { task: COMPLETED, said: 'The quota is 10 VPCs per region.', artifacts: [{ id: 'report', parts: [textPart('Quota report: 3 of 10 used.')] }] },
    ],
  },
  'failure in the Task alone': { bare: true, steps: [{ task: FAILED, said: 'Quota exceeded in cn-hangzhou.' }] },
};

const WITH_FILE_STREAMED = `I generated the template below.\n${TF_READ}\nDeploy it with \`aliyun ros CreateStack\`.`;
/** The Task a blocking call answers holds its files after its messages. */
const WITH_FILE_REPLAYED = `${WHOLE}\n${TF_READ}`;
const TASK_ALONE = 'Quota report: 3 of 10 used.\nThe quota is 10 VPCs per region.';
const PLAN = 'The plan has 3 resources.\nValidating template\nIt costs about ¥120 a month.';

/** What the user reads of each script, streamed by the agent and replayed from its Task (undefined: not asked). */
const READS: Record<string, { streamed: string; replayed?: string; state?: string }> = {
  'markdown tokens': { streamed: MARKDOWN.join(''), replayed: MARKDOWN.join('') },
  // An a2a-js store keeps only the first message of an id in the history: a blocking answer holds no more.
  'markdown tokens under one id': { streamed: MARKDOWN.join('') },
  'template cut in a character': { streamed: `正在生成 Terraform 模板…\n${TF_READ}\n正在校验模板\n模板已生成，请查看 main.tf。` },
  'restated around a file': { streamed: WITH_FILE_STREAMED, replayed: WITH_FILE_REPLAYED },
  // The store keeps the first token of the id, which is the closing message's: the replay holds that alone.
  'restated around a file under one id': { streamed: WITH_FILE_STREAMED, replayed: `${TF_READ}\n${WHOLE}` },
  'restated around a file as an artifact': { streamed: WITH_FILE_STREAMED, replayed: WITH_FILE_REPLAYED },
  'restated around a progress line': { streamed: PLAN, replayed: PLAN },
  'answer in the Task alone': { streamed: TASK_ALONE, replayed: TASK_ALONE },
  'failure in the Task alone': { streamed: 'Quota exceeded in cn-hangzhou.', replayed: 'Quota exceeded in cn-hangzhou.', state: 'failed' },
};

/** Every part the user is sent is text, in one reply artifact. */
function expectTextOnly(artifacts: any[]): void {
  expect(new Set(artifacts.map((artifact) => artifact.artifactId)).size).toBe(1);
  for (const artifact of artifacts) for (const sent of artifact.parts) expect(sent.kind).toBe('text');
}

describe.each([
  ['streams', true],
  ['does not stream', false],
] as const)('a Bailian user in front of an a2a-js 1.x agent that %s', (_, streaming) => {
  let agent: RunningTestAgent;
  let gateway: RunningGateway;
  beforeAll(async () => {
    agent = await startScriptPlayer(SCRIPTS, { streaming });
    gateway = await startFacadeGateway({ upstream: { url: agent.url } });
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  const asked = Object.entries(READS).flatMap(([script, read]) => {
    const expected = streaming ? read.streamed : read.replayed;
    return expected === undefined ? [] : [{ script, expected, state: read.state ?? 'completed' }];
  });
  for (const { script, expected, state } of asked) {
    it(`${script}: the agent's words once, the same in message/stream and message/send`, async () => {
      const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: script }) });
      const events = results(await stream.rest());
      expect(streamedText(events)).toBe(expected);
      expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state } });
      expectTextOnly(events.filter((event) => event.kind === 'artifact-update').map((event) => event.artifact));

      const { body } = await rpc(gateway.url, 'message/send', { message: userMessage({ text: script }) });
      expect(sentText(body.result)).toBe(expected);
      expect(body.result.status.state).toBe(state);
      expectTextOnly(body.result.artifacts);
    });
  }
});
