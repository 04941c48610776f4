/**
 * `upstream.workspace-root` turned on for a deployment with conversations under way: iac-code bound each of their
 * contexts to its own folder, and fails their next turn before it does anything ("ValueError: A2A context belongs
 * to a different workspace", as the fake does: fake-iac-code-turn-settings.ts). A Bailian user of such a
 * conversation reads the agent's answer to their message instead, in message/send, message/stream and tasks/get
 * (the words went again in a fresh context, which has a folder of its own, its user told first that the agent
 * started afresh there, in tasks/get too: started-afresh-everywhere.test.ts), and the conversation's next messages go
 * on in that context, under the id they began with or the one the answer gave. With `store: memory` the restarted
 * gateway knows nothing of the conversation (its message opens a new task); with `store: redis` it aims the message
 * at the waiting task, which iac-code fails the same way.
 */
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { workspaceOf } from '../../../src/upstream/iac-code/workspaces.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { turnMetadata, WRONG_WORKSPACE } from '../../support/fake-iac-code-turn-settings.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import { freshRedisStores, requireRedis } from '../../support/redis.js';

const ROOT = '/srv/a2a-workspaces';
const SCRIPT = { before: ['好的，', '正在查询。'], after: ['交换机列表如下。'], artifact: { filename: 'main.tf' } };
/** What a Chinese user reads before the answer of the turn that went on in a fresh context. */
const STARTED_AFRESH =
  '智能体已不再保留之前的对话，本次回复从头开始：它不了解之前的对话内容，也无法使用之前生成的文件。如果你的消息涉及之前的内容，请重新完整地描述。';

interface Read {
  text: string;
  state: string;
  contextId: string;
  taskId: string;
}

const reads: Record<'stream' | 'send', (gateway: RunningGateway, text: string, contextId: string) => Promise<Read>> = {
  async stream(gateway, text, contextId) {
    const opened = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text, contextId }) });
    const events = results(await opened.rest());
    const last = events.at(-1);
    return { text: streamedText(events), state: last.status.state, contextId: last.contextId, taskId: last.taskId };
  },
  async send(gateway, text, contextId) {
    const { result } = (await rpc(gateway.url, 'message/send', { message: userMessage({ text, contextId }) })).body;
    return { text: sentText(result), state: result.status.state, contextId: result.contextId, taskId: result.id };
  },
};

/** The context, task and folder of each turn the fake received since the `from`th, read as iac-code reads them. */
function turnsSince(fake: FakeIacCode, from: number): Array<{ contextId: string; taskId: string | undefined; cwd: string | undefined }> {
  return fake
    .rpcRequests()
    .filter((request) => request.rpcMethod === 'SendStreamingMessage' || request.rpcMethod === 'SendMessage')
    .slice(from)
    .map((request) => (request.body as any).params)
    .map((params) => ({ contextId: params.message.contextId, taskId: params.message.taskId, cwd: (turnMetadata(params) as any)?.iac_code?.cwd }));
}
const turnCount = (fake: FakeIacCode) => turnsSince(fake, 0).length;

describe('facade → iac-code: a conversation begun before upstream.workspace-root was turned on', () => {
  let fake: FakeIacCode | undefined;
  const gateways: RunningGateway[] = [];
  afterEach(async () => {
    for (const gateway of gateways.splice(0)) await gateway.close();
    await fake?.close();
  });

  const gatewayWith = async (upstream: Record<string, unknown>, stores: Record<string, unknown>): Promise<RunningGateway> => {
    const gateway = await startFacadeGateway({ upstream: { url: fake!.url, ...upstream }, ...stores });
    gateways.push(gateway);
    return gateway;
  };

  for (const store of ['memory', 'redis'] as const)
    for (const mode of ['send', 'stream'] as const)
      it(`${store}, ${mode}: the user reads the agent's answer, in tasks/get too, and the conversation goes on`, async () => {
        fake = await startFakeIacCode({ script: SCRIPT });
        if (store === 'redis') await requireRedis();
        // Its keys go when the test finished: after the afterEach closed the gateways.
        const stores = store === 'redis' ? freshRedisStores('workspace-moved', onTestFinished) : {};
        const contextId = `bailian-conv-${store}-${mode}`;

        // The conversation's first turn, before the root: iac-code binds its context to its own folder.
        const before = await gatewayWith({}, stores);
        const first = await reads[mode](before, '帮我查一下我的专有网络', contextId);
        expect(first.text).toContain('交换机列表如下。');
        gateways.splice(gateways.indexOf(before), 1);
        await before.close();

        // The deployment turns the root on.
        const gateway = await gatewayWith({ 'workspace-root': ROOT }, stores);
        const from = turnCount(fake);
        const next = await reads[mode](gateway, '再帮我查一下交换机', contextId);
        expect(next.text).not.toContain(WRONG_WORKSPACE);
        // The agent has none of the conversation in the fresh context: its user reads so first, once.
        expect(next.text).toBe(`${STARTED_AFRESH}\n\n${first.text}`);
        expect(next.state).not.toBe('failed');
        const sent = turnsSince(fake, from);
        // Refused in the conversation's own context (aimed at its waiting task when the registry kept it), then the
        // same words in a fresh context, in that context's own folder.
        expect(sent).toHaveLength(2);
        expect(sent[0]).toEqual({ contextId, taskId: store === 'redis' ? first.taskId : undefined, cwd: workspaceOf(ROOT, contextId) });
        const moved = sent[1]!.contextId;
        expect(moved).not.toBe(contextId);
        expect(sent[1]).toEqual({ contextId: moved, taskId: undefined, cwd: workspaceOf(ROOT, moved) });
        expect(next.contextId).toBe(moved);

        // tasks/get reads the turn's reply as its user read it: the facade's words, then the agent's answer.
        const got = (await rpc(gateway.url, 'tasks/get', { id: next.taskId })).body.result;
        expect(sentText(got)).toBe(next.text);
        expect(sentText(got)).not.toContain(WRONG_WORKSPACE);

        // Bailian's next message, under the id the conversation began with: it goes to the moved context's waiting
        // task at once, refused nowhere, and so does one under the id the answer gave.
        for (const [text, id] of [
          ['谢谢，再看看安全组', contextId],
          ['再看看路由表', moved],
        ] as const) {
          const at = turnCount(fake);
          const later = await reads[mode](gateway, text, id);
          expect(later.text).toBe(first.text);
          expect(later.contextId).toBe(moved);
          expect(later.taskId).toBe(next.taskId);
          expect(turnsSince(fake, at)).toEqual([{ contextId: moved, taskId: next.taskId, cwd: workspaceOf(ROOT, moved) }]);
        }
      });
});
