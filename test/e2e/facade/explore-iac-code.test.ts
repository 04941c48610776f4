/**
 * A Bailian user in front of iac-code (the fake iac-code's captured shapes), where what they read went wrong:
 * - they hung up (Bailian's own wait, a network blip) after reading every word of a turn, before iac-code's turn ended
 *   (its restatement and its INPUT_REQUIRED came after). The turn has nothing left to show, so their next message is
 *   their next question: it must reach iac-code and be answered, not be held back behind an empty "here is the rest
 *   of the reply" that tells them to send it again;
 * - they answer iac-code's Chinese permission prompt in the words of its question.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { PERMISSION_DENIED_AFTER, PERMISSION_PROMPT_ZH } from '../../support/fake-iac-code-data.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { reading, startFacadeGateway } from '../../support/facade.js';
import { waitUntil } from '../../support/wait-until.js';
import { streamHungUpAt } from './hung-up-stream.js';

const TEMPLATE = 'ROSTemplateFormatVersion: "2015-09-01"\nResources:\n  Vpc:\n    Type: ALIYUN::ECS::VPC\n';
const SHOWN_TEMPLATE = `template.yaml\n\`\`\`yaml\n${TEMPLATE}\`\`\``;
/** How the facade opens the rest of a turn its user stopped reading (words-zh.ts cutTurnRest, cutTurnWhole). */
const REST_LEAD = '以下是你上一条消息';

describe.each([
  ['closing words after the template', ['模板已写好，', '可以用 ROS 控制台部署。'], '可以用 ROS 控制台部署。'],
  // iac-code's model may say nothing after its tool wrote the file: the template is the turn's last word.
  ['the template last', [], 'ALIYUN::ECS::VPC'],
])('a Bailian user who read all of an iac-code turn (%s), then hung up before its end', (_, after, lastRead) => {
  const dir = mkdtempSync(join(tmpdir(), 'explore-iac-'));
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode({
      script: { before: ['我来为你', '写 ROS 模板。'], after, artifact: { filename: 'template.yaml', content: Buffer.from(TEMPLATE), dir } },
      frameDelayMs: 100,
    });
    gateway = await startFacadeGateway({ upstream: { url: fake.url, 'artifact-dir': dir } });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['message/send', 'message/stream'] as const)('their next question, over %s, reaches iac-code and is answered', async (method) => {
    const read = await streamHungUpAt(gateway.url, '帮我写一个 VPC 的 ROS 模板', lastRead);
    const task = [...fake.tasks.values()].find((known) => known.contextId === read.contextId);
    await waitUntil(async () => (task?.status as { state?: string } | undefined)?.state === 'TASK_STATE_INPUT_REQUIRED');
    const sentBefore = fake.rpcRequests('SendStreamingMessage').length;

    const reply = await reading(gateway.url, method, '再加一个交换机', read.contextId);
    expect(reply).not.toContain(REST_LEAD);
    const asked = fake.rpcRequests('SendStreamingMessage').slice(sentBefore);
    expect(asked.map((request: any) => request.body.params.message.parts[0]?.text)).toEqual(['再加一个交换机']);
    // The fake answers every turn with the same words: the answer to the new question, its template once.
    expect(reply).toBe(['我来为你写 ROS 模板。', SHOWN_TEMPLATE, ...(after.length > 0 ? [after.join('')] : [])].join('\n'));
  });
});

/**
 * iac-code asks "是否允许本次操作：…？" before its tool writes the template. Chinese users answer with the question's own
 * words and the run's verb (允许执行, 拒绝执行, 不允许本次操作): the facade must hear the decision, not ask again.
 */
describe("a Chinese user answering iac-code's permission prompt in the words of its question", () => {
  const dir = mkdtempSync(join(tmpdir(), 'explore-iac-'));
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode({
      script: {
        before: ['我来写模板。'],
        after: ['模板已写好。'],
        permission: true,
        artifact: { filename: 'template.yaml', content: Buffer.from(TEMPLATE), dir },
      },
    });
    gateway = await startFacadeGateway({ upstream: { url: fake.url, 'artifact-dir': dir } });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const answers: Array<[string, string]> = [
    ['允许执行', 'allow_once'],
    ['同意执行', 'allow_once'],
    ['好的，允许本次操作', 'allow_once'],
    ['拒绝执行', 'deny'],
    ['不允许执行', 'deny'],
    ['不同意执行', 'deny'],
    ['不允许本次操作', 'deny'],
  ];
  it.each(answers)('"%s" reaches iac-code as %s', async (answer, decision) => {
    const contextId = randomUUID();
    expect(await reading(gateway.url, 'message/send', '帮我写一个 VPC 的 ROS 模板', contextId)).toContain(PERMISSION_PROMPT_ZH);
    const reply = await reading(gateway.url, 'message/send', answer, contextId);
    const sent = fake.rpcRequests('SendStreamingMessage').at(-1)?.body as any;
    expect(sent.params.message.parts).toMatchObject([{ data: { kind: 'permission', decision } }]);
    expect(reply).toBe(decision === 'deny' ? PERMISSION_DENIED_AFTER.join('') : `${SHOWN_TEMPLATE}\n模板已写好。`);
  });
});
