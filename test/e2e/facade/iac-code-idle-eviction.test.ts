/**
 * A Bailian user comes back to a conversation iac-code evicted while it sat idle (docs/iac-code.md, "Idle
 * eviction"). The facade aims the follow-up at the conversation's waiting task, which iac-code then fails at
 * once ("A2A task expired"): the user's same words go again as a new task of the conversation, and the user
 * reads the answer to them, nothing of the refused attempt, in message/stream as in message/send. A context
 * iac-code refuses too ("ValueError: A2A context expired") goes on in a fresh one, its user told that the agent
 * started afresh there. A caller that named its
 * task itself gets iac-code's failure as it is: the facade did not pick that task.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { CONTEXT_EXPIRED, TASK_EXPIRED } from '../../support/fake-iac-code-eviction.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';

const SCRIPT = { before: ['好的，', '正在查询。'], after: ['交换机列表如下。'], artifact: { filename: 'main.tf' } };
/** What a Chinese user reads before the answer of a turn that went on in a fresh context. */
const STARTED_AFRESH =
  '智能体已不再保留之前的对话，本次回复从头开始：它不了解之前的对话内容，也无法使用之前生成的文件。如果你的消息涉及之前的内容，请重新完整地描述。';

interface Read {
  text: string;
  state: string;
  contextId: string;
  taskId: string;
}

describe('facade → iac-code: a follow-up into a conversation iac-code evicted while idle', () => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  afterEach(async () => {
    await gateway?.close();
    await fake?.close();
  });

  async function start(): Promise<void> {
    fake = await startFakeIacCode({ script: SCRIPT });
    gateway = await startFacadeGateway({ upstream: { url: fake.url } });
  }

  const reads: Record<'stream' | 'send', (text: string, ids?: { contextId?: string; taskId?: string }) => Promise<Read>> = {
    async stream(text, ids = {}) {
      const opened = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text, ...ids }) });
      const events = results(await opened.rest());
      const last = events.at(-1);
      return { text: streamedText(events), state: last.status.state, contextId: last.contextId, taskId: last.taskId };
    },
    async send(text, ids = {}) {
      const { result } = (await rpc(gateway.url, 'message/send', { message: userMessage({ text, ...ids }) })).body;
      return { text: sentText(result), state: result.status.state, contextId: result.contextId, taskId: result.id };
    },
  };

  /** What the gateway sent iac-code for each turn since `from`: the task it went to, its context and its words. */
  const sentSince = (from: number) =>
    fake
      .rpcRequests()
      .filter((r) => r.rpcMethod === 'SendStreamingMessage' || r.rpcMethod === 'SendMessage')
      .slice(from)
      .map((r) => {
        const message = (r.body as any).params.message;
        return { taskId: message.taskId, contextId: message.contextId, text: message.parts.map((p: any) => p.text).join('') };
      });
  const turnsSent = () => sentSince(0).length;

  for (const mode of ['stream', 'send'] as const) {
    it(`${mode}: the user's words go to a new task of the conversation, and the user reads its answer`, async () => {
      await start();
      const first = await reads[mode]('帮我查一下我的专有网络');
      expect(first.text).toContain('交换机列表如下。');
      fake.evictContext(first.contextId);

      const before = turnsSent();
      const next = await reads[mode]('再帮我查一下交换机', { contextId: first.contextId });
      expect(next.text).toBe(first.text);
      expect(next.text).not.toMatch(/expired/i);
      expect(next.state).not.toBe('failed');
      expect(next.contextId).toBe(first.contextId);
      expect(next.taskId).not.toBe(first.taskId);
      // Aimed at the forgotten task, refused, then the same words as a new task of the same context.
      expect(sentSince(before)).toEqual([
        { taskId: first.taskId, contextId: first.contextId, text: '再帮我查一下交换机' },
        { taskId: undefined, contextId: first.contextId, text: '再帮我查一下交换机' },
      ]);
      expect((fake.tasks.get(first.taskId)!.status as any).message.parts[0].text).toBe(TASK_EXPIRED);

      // The conversation goes on in the new task.
      const after = turnsSent();
      const third = await reads[mode]('谢谢，再看看安全组', { contextId: first.contextId });
      expect(third.text).toBe(first.text);
      expect(sentSince(after)).toEqual([{ taskId: next.taskId, contextId: first.contextId, text: '谢谢，再看看安全组' }]);
    });

    it(`${mode}: a context iac-code refuses too: the words go on in a fresh context`, async () => {
      await start();
      const first = await reads[mode]('帮我查一下我的专有网络');
      fake.evictContext(first.contextId, { refuseContext: true });

      const before = turnsSent();
      const next = await reads[mode]('再帮我查一下交换机', { contextId: first.contextId });
      // The agent has none of the conversation there: its user reads so first (iac-code-started-afresh.test.ts).
      expect(next.text).toBe(`${STARTED_AFRESH}\n\n${first.text}`);
      expect(next.state).not.toBe('failed');
      const sent = sentSince(before);
      expect(sent.map((turn) => turn.text)).toEqual(['再帮我查一下交换机', '再帮我查一下交换机', '再帮我查一下交换机']);
      expect(sent.slice(0, 2).map((turn) => [turn.taskId, turn.contextId])).toEqual([
        [first.taskId, first.contextId],
        [undefined, first.contextId],
      ]);
      expect(sent[2]!.taskId).toBeUndefined();
      expect(sent[2]!.contextId).not.toBe(first.contextId);
      expect(next.contextId).toBe(sent[2]!.contextId);
      const refused = [...fake.tasks.values()].find((task) => task.contextId === first.contextId && task.id !== first.taskId);
      expect((refused!.status as any).message.parts[0].text).toBe(CONTEXT_EXPIRED);
    });

    it(`${mode}: a caller that named the task itself reads iac-code's failure`, async () => {
      await start();
      const first = await reads[mode]('帮我查一下我的专有网络');
      fake.evictContext(first.contextId);
      const before = turnsSent();
      const next = await reads[mode]('再帮我查一下交换机', { contextId: first.contextId, taskId: first.taskId });
      expect(next.state).toBe('failed');
      expect(next.text).toContain(TASK_EXPIRED);
      expect(sentSince(before)).toHaveLength(1);
    });
  }
});
