/**
 * A Bailian conversation whose context iac-code refuses for good ("ValueError: A2A context expired", as the fake's
 * eviction plays it; or bound to another folder) goes on in a fresh context (gone-task.ts), where the agent does not
 * know the earlier turns nor the files it wrote then. Its user reads that once, in the language they write in,
 * before the agent's answer to the turn that moved, in message/send as in message/stream; the next turns read the
 * agent alone. A turn whose task alone iac-code forgot ("A2A task expired") goes on in the same context, which
 * iac-code reads back from its saved session (docs/iac-code.md, "Idle eviction"): nothing is told there.
 * A caller that hangs up on the turn that moved reads its reply with its next message, and the same message again
 * (a retry whose answer was lost) reads its reply, as in a conversation that never moved: both are noted where it went.
 * What tasks/get and a retry read of that turn, and whether a hang-up's rest tells the words: started-afresh-everywhere.test.ts.
 */
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import { freshRedisStores, requireRedis } from '../../support/redis.js';
import { waitUntil } from '../../support/wait-until.js';

const SCRIPT = { before: ['好的，', '正在查询。'], after: ['交换机列表如下。'], artifact: { filename: 'main.tf' } };

/** What each language's user reads, and a few words of it that no agent writes. */
const LANGUAGES = {
  zh: { first: '帮我查一下我的专有网络', next: '再帮我查一下交换机', then: '谢谢，再看看安全组', told: '智能体已不再保留之前的对话' },
  ja: {
    first: '私のVPCを調べてください',
    next: 'vSwitchも調べてください',
    then: 'ありがとう、セキュリティグループも見てください',
    told: '以前の会話を保持していない',
  },
  en: {
    first: 'look up my VPC please',
    next: 'now look up the vSwitches',
    then: 'thanks, now the security groups',
    told: 'no longer had the earlier part of this conversation',
  },
} as const;

interface Read {
  text: string;
  state: string;
  contextId: string;
  taskId: string;
}

describe('facade → iac-code: a conversation moved to a fresh context tells its user the agent started afresh', () => {
  let fake: FakeIacCode;
  let gateway: RunningGateway;
  afterEach(async () => {
    await gateway?.close();
    await fake?.close();
  });

  /** The fake and a gateway in front of it; with `store: redis`, the conversation's notes are kept in Redis. */
  async function start(frameDelayMs?: number, store: 'memory' | 'redis' = 'memory'): Promise<void> {
    if (store === 'redis') await requireRedis();
    // Its keys go when the test finished: after the afterEach closed the gateway.
    const stores = store === 'redis' ? freshRedisStores('started-afresh', onTestFinished) : {};
    fake = await startFakeIacCode({ script: SCRIPT, ...(frameDelayMs ? { frameDelayMs } : {}) });
    gateway = await startFacadeGateway({ upstream: { url: fake.url }, ...stores });
  }

  const reads: Record<'stream' | 'send', (text: string, ids?: { contextId?: string }) => Promise<Read>> = {
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

  const turnsSent = () => fake.rpcRequests().filter((r) => r.rpcMethod === 'SendStreamingMessage' || r.rpcMethod === 'SendMessage').length;

  for (const mode of ['send', 'stream'] as const) {
    for (const [language, words] of Object.entries(LANGUAGES))
      it(`${mode}, ${language}: the turn that moved opens with it, once; the next turn is the agent's alone`, async () => {
        await start();
        const first = await reads[mode](words.first);
        fake.evictContext(first.contextId, { refuseContext: true });

        const next = await reads[mode](words.next, { contextId: first.contextId });
        expect(next.contextId).not.toBe(first.contextId);
        expect(next.state).not.toBe('failed');
        // Told first, on its own, then the agent's answer as it always reads.
        const [told, ...rest] = next.text.split('\n\n');
        expect(told).toContain(words.told);
        expect(rest.join('\n\n')).toBe(first.text);
        for (const other of Object.values(LANGUAGES)) if (other !== words) expect(next.text).not.toContain(other.told);

        const third = await reads[mode](words.then, { contextId: first.contextId });
        expect(third.contextId).toBe(next.contextId);
        expect(third.text).toBe(first.text);
      });

    it(`${mode}: a task iac-code forgot in a context it keeps is not told of: the agent still has the conversation`, async () => {
      await start();
      const first = await reads[mode](LANGUAGES.zh.first);
      fake.evictContext(first.contextId);
      const next = await reads[mode](LANGUAGES.zh.next, { contextId: first.contextId });
      expect(next.contextId).toBe(first.contextId);
      expect(next.taskId).not.toBe(first.taskId);
      expect(next.text).toBe(first.text);
    });
  }

  it("the turn that moved, sent again after its answer was lost (Bailian's retry), is not run a second time", async () => {
    await start();
    const first = await reads.send(LANGUAGES.zh.first);
    fake.evictContext(first.contextId, { refuseContext: true });
    const message = userMessage({ text: LANGUAGES.zh.next, contextId: first.contextId });
    const moved = (await rpc(gateway.url, 'message/send', { message })).body.result;
    expect(moved.contextId).not.toBe(first.contextId);

    const sent = turnsSent();
    const again = (await rpc(gateway.url, 'message/send', { message })).body.result;
    expect(again).toMatchObject({ id: moved.id, contextId: moved.contextId });
    expect(sentText(again)).toContain(first.text);
    expect(turnsSent()).toBe(sent);
  });

  for (const store of ['memory', 'redis'] as const)
    it(`${store}: a caller that hangs up on the turn that moved reads its reply with the next message, which is not sent`, async () => {
      await start(40, store);
      const first = await reads.send(LANGUAGES.en.first);
      fake.evictContext(first.contextId, { refuseContext: true });

      const stream = await openStream(`${gateway.url}/stream`, 'message/stream', {
        message: userMessage({ text: LANGUAGES.en.next, contextId: first.contextId }),
      });
      const head = (await stream.next())?.json.result;
      expect(head.contextId).not.toBe(first.contextId);
      stream.abort();
      await waitUntil(async () => (fake.tasks.get(head.id)?.status as { state?: string } | undefined)?.state === 'TASK_STATE_INPUT_REQUIRED');

      const sent = turnsSent();
      const after = await rpc(gateway.url, 'message/send', { message: userMessage({ text: LANGUAGES.en.then, contextId: first.contextId }) });
      expect(after.body.error).toBeUndefined();
      expect(after.body.result).toMatchObject({ id: head.id, contextId: head.contextId });
      expect(sentText(after.body.result)).toContain('Here is the reply to your previous message');
      // Never twice: told with its reply unless the stream wrote them before its caller left (read with the first
      // frame, as far as the gateway can tell): each case on its own in started-afresh-everywhere.test.ts.
      expect(sentText(after.body.result).split(LANGUAGES.en.told).length - 1).toBeLessThanOrEqual(1);
      expect(sentText(after.body.result)).toContain(first.text);
      expect(turnsSent()).toBe(sent);
    });
});
