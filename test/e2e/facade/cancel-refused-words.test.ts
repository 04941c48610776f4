/**
 * tasks/cancel refused (-32002) told in the conversation's language, its code kept, as the gateway's failures of a
 * task call are (task-calls-language.test.ts). Under `bailian` a turn that waits on a permission prompt is shown
 * waiting (`input-required`), so a cancel of its task is iac-code's to take (the fake takes it). An operator who maps
 * INPUT_REQUIRED to `completed` (`bailian.mappings`) shows that turn finished: the cancel is then refused as for any
 * finished task, and its user is told how to decline instead: that reply then reaches iac-code as the prompt's deny.
 * Under the plain `a2a-0.2.5` profile a finished iac-code turn (INPUT_REQUIRED, shown `input-required`) is asked of
 * the agent, and its own refusal is told in the facade's words too. An English conversation keeps the gateway's or the
 * agent's words.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { PERMISSION_DENIED_AFTER, PERMISSION_PROMPT_ZH } from '../../support/fake-iac-code-data.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import {
  openStream,
  results,
  rpc,
  sentText,
  startFacadeGateway,
  startRelayingFacadeGateway,
  streamedText,
  userMessage,
} from '../../support/facade.js';

const SCRIPT = { before: ['正在起草 '], after: ['已写入 main.tf'], artifact: { filename: 'main.tf' } };

/** A turn of `text` read over message/stream: its task, its conversation and what its user read. */
async function turn(gatewayUrl: string, text: string): Promise<{ taskId: string; contextId: string; read: string }> {
  const stream = await openStream(`${gatewayUrl}/stream`, 'message/stream', { message: userMessage({ text }) });
  const events = results(await stream.rest());
  return { taskId: events[0].id, contextId: events[0].contextId, read: streamedText(events) };
}

describe.each(['open', 'parked'] as const)(
  'tasks/cancel of a task waiting on a permission prompt (bailian; the prompt waits %s)',
  (permissionWait) => {
    let fake: FakeIacCode;
    let gateway: RunningGateway;
    beforeAll(async () => {
      fake = await startFakeIacCode({ script: { ...SCRIPT, permission: true }, permissionWait });
      gateway = await startFacadeGateway({ upstream: { url: fake.url } });
    });
    afterAll(async () => {
      await gateway?.close();
      await fake?.close();
    });

    it('is not refused by the gateway: the task was shown waiting, and iac-code cancels it', async () => {
      const asked = await turn(gateway.url, '帮我创建一个专有网络');
      const canceled = await rpc(gateway.url, 'tasks/cancel', { id: asked.taskId });
      expect(canceled.body.error).toBeUndefined();
      expect(fake.rpcRequests('CancelTask')).toHaveLength(1);
      // `bailian` has no canceled state: the turn ended without an answer (bailian.json).
      expect(canceled.body.result.status.state).toBe('failed');
    });
  },
);

describe.each(['open', 'parked'] as const)(
  'tasks/cancel of a task waiting on a permission prompt (bailian, INPUT_REQUIRED mapped to completed; the prompt waits %s)',
  (permissionWait) => {
    let fake: FakeIacCode;
    let gateway: RunningGateway;
    beforeAll(async () => {
      fake = await startFakeIacCode({ script: { ...SCRIPT, permission: true }, permissionWait });
      const mappings = { 'states-to-v025': { TASK_STATE_INPUT_REQUIRED: 'completed' } };
      gateway = await startFacadeGateway({ upstream: { url: fake.url }, bailian: { mappings } });
    });
    afterAll(async () => {
      await gateway?.close();
      await fake?.close();
    });

    it('is refused in Chinese with how to decline, and that reply denies the tool', async () => {
      const asked = await turn(gateway.url, '帮我创建一个专有网络');
      expect(asked.read).toBe(`正在起草 \n${PERMISSION_PROMPT_ZH}\n请回复“仅允许一次”或“拒绝”。`);
      const canceled = await rpc(gateway.url, 'tasks/cancel', { id: asked.taskId });
      expect(canceled.body.error).toEqual({ code: -32002, message: '无法取消该任务：智能体正在等待你回答它的问题。如不想继续，请回复“拒绝”。' });
      // Doing as told: the reply reaches iac-code as the prompt's deny.
      const denied = await rpc(gateway.url, 'message/send', { message: userMessage({ text: '拒绝', contextId: asked.contextId }) });
      expect(sentText(denied.body.result)).toBe(PERMISSION_DENIED_AFTER.join(''));
      const sent = fake.rpcRequests('SendStreamingMessage').at(-1)?.body as any;
      expect(sent.params.message.parts).toMatchObject([{ data: { kind: 'permission', decision: 'deny' } }]);
    });

    it('is refused in Japanese and in English with how to decline', async () => {
      const japanese = await turn(gateway.url, 'VPCを作成してください');
      const ja = await rpc(gateway.url, 'tasks/cancel', { id: japanese.taskId });
      expect(ja.body.error).toEqual({
        code: -32002,
        message: 'このタスクはキャンセルできません。エージェントは質問への回答を待っています。続けない場合は「拒否」と返信してください。',
      });
      const english = await turn(gateway.url, 'Create a VPC for me');
      const en = await rpc(gateway.url, 'tasks/cancel', { id: english.taskId });
      expect(en.body.error).toEqual({
        code: -32002,
        message: 'Task cannot be canceled: the agent is waiting for your answer to its question. If you do not want it to go on, reply "Deny".',
      });
    });
  },
);

describe.each([
  { profile: 'bailian', start: startFacadeGateway, refusedBy: 'the gateway (the caller was shown it completed)' },
  { profile: 'a2a-0.2.5', start: startRelayingFacadeGateway, refusedBy: 'iac-code (its turn is over)' },
])('tasks/cancel of a finished iac-code turn under $profile, refused by $refusedBy', ({ start }) => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode({ script: SCRIPT });
    gateway = await start({ upstream: { url: fake.url } });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  it("says so in the conversation's language, the code kept", async () => {
    const chinese = await turn(gateway.url, '帮我创建一个专有网络');
    expect(chinese.read).toContain('已写入 main.tf');
    const zh = await rpc(gateway.url, 'tasks/cancel', { id: chinese.taskId });
    expect(zh.body.error).toEqual({ code: -32002, message: '无法取消该任务：它已经结束，或智能体不接受取消。' });
    const japanese = await turn(gateway.url, 'VPCを作成してください');
    const ja = await rpc(gateway.url, 'tasks/cancel', { id: japanese.taskId });
    expect(ja.body.error).toEqual({
      code: -32002,
      message: 'このタスクはキャンセルできません。既に終了しているか、エージェントがキャンセルを受け付けていません。',
    });
    const english = await turn(gateway.url, 'Create a VPC for me');
    const en = await rpc(gateway.url, 'tasks/cancel', { id: english.taskId });
    expect(en.body.error).toEqual({ code: -32002, message: 'Task cannot be canceled' });
  });
});
