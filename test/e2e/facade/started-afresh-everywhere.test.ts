/**
 * What a Bailian user reads of a turn that went on in a fresh context (iac-code refused the conversation's own for
 * good: gone-task.ts) is one reply, whichever way they read it: the facade's words that say the agent started afresh
 * (words.startedAfresh), then the agent's answer. tasks/get of its task, and the same message sent again after its
 * answer was lost (Bailian's retry: repeated-turn.ts), read what message/send and message/stream read; a later turn
 * of the same task reads the agent alone. A caller that hung up on the turn reads the words once: told with its
 * reply when it read none of them (a message/send hung up), not again when its stream had shown them before the
 * agent said anything. The note that the turn started afresh is kept in memory and in Redis alike.
 */
import { describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { fakeTaskState, openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import { freshRedisStores, requireRedis } from '../../support/redis.js';
import { waitUntil } from '../../support/wait-until.js';

const SCRIPT = { before: ['好的，', '正在查询。'], after: ['交换机列表如下。'], artifact: { filename: 'main.tf' } };
/** What a Chinese user reads before the answer of the turn that went on in a fresh context. */
const STARTED_AFRESH =
  '智能体已不再保留之前的对话，本次回复从头开始：它不了解之前的对话内容，也无法使用之前生成的文件。如果你的消息涉及之前的内容，请重新完整地描述。';
/** The first words the fake agent says in a turn. */
const AGENT_FIRST_WORDS = SCRIPT.before[0]!;

type Store = 'memory' | 'redis';
type Mode = 'send' | 'stream';

interface Read {
  text: string;
  contextId: string;
  taskId: string;
}

/** How many times `words` are in `text`. */
const timesIn = (text: string, words: string): number => text.split(words).length - 1;

/** A fake iac-code and a gateway in front of it, a test's own, and what the tests ask of them. */
interface Setup {
  fake: FakeIacCode;
  gateway: RunningGateway;
  /** What its user reads of `message`, sent one way or the other. */
  read(mode: Mode, message: Record<string, unknown>): Promise<Read>;
  tasksGet(taskId: string): Promise<string>;
  turnRequests(): ReturnType<FakeIacCode['rpcRequests']>;
  turnsSent(): number;
  /** A conversation's first turn, then its context refused for good: the message `moving` goes on in a fresh context. */
  moved(mode: Mode): Promise<{ first: Read; moving: Record<string, unknown>; next: Read }>;
}

/** The fake and a gateway in front of it, the conversation's notes kept in `store`; closed when the test ends. */
async function start(store: Store, onTestFinished: (close: () => Promise<void>) => void, frameDelayMs = 0): Promise<Setup> {
  if (store === 'redis') await requireRedis();
  const stores = store === 'redis' ? freshRedisStores('started-afresh-everywhere', onTestFinished) : {};
  const fake = await startFakeIacCode({ script: SCRIPT, ...(frameDelayMs ? { frameDelayMs } : {}) });
  const gateway = await startFacadeGateway({ upstream: { url: fake.url }, ...stores });
  onTestFinished(async () => {
    await gateway.close();
    await fake.close();
  });

  async function read(mode: Mode, message: Record<string, unknown>): Promise<Read> {
    if (mode === 'send') {
      const { body } = await rpc(gateway.url, 'message/send', { message });
      expect(body.error).toBeUndefined();
      return { text: sentText(body.result), contextId: body.result.contextId, taskId: body.result.id };
    }
    const events = results(await (await openStream(`${gateway.url}/stream`, 'message/stream', { message })).rest());
    const last = events.at(-1);
    return { text: streamedText(events), contextId: last.contextId, taskId: last.taskId };
  }
  const turnRequests = () => fake.rpcRequests().filter((r) => r.rpcMethod === 'SendStreamingMessage' || r.rpcMethod === 'SendMessage');
  return {
    fake,
    gateway,
    read,
    async tasksGet(taskId) {
      const { body } = await rpc(gateway.url, 'tasks/get', { id: taskId });
      expect(body.error).toBeUndefined();
      return sentText(body.result);
    },
    turnRequests,
    turnsSent: () => turnRequests().length,
    async moved(mode) {
      const first = await read(mode, userMessage({ text: '帮我查一下我的专有网络' }));
      fake.evictContext(first.contextId, { refuseContext: true });
      const moving = userMessage({ text: '再帮我查一下交换机', contextId: first.contextId });
      const next = await read(mode, moving);
      expect(next.contextId).not.toBe(first.contextId);
      expect(next.text).toBe(`${STARTED_AFRESH}\n\n${first.text}`);
      return { first, moving, next };
    },
  };
}

// Each test with a fake and a gateway of its own, side by side: the hang-up cases wait on a slow agent.
describe.concurrent('facade → iac-code: a turn that started afresh reads the same in every path', () => {
  for (const store of ['memory', 'redis'] as const)
    for (const mode of ['send', 'stream'] as const) {
      it(`${store}, ${mode}: tasks/get of the turn that moved reads what its ${mode} read; of the task's next turn, the agent alone`, async ({
        onTestFinished,
      }) => {
        const { moved, read, tasksGet } = await start(store, onTestFinished);
        const { first, next } = await moved(mode);
        expect(await tasksGet(next.taskId)).toBe(next.text);

        // The task's next turn is the agent's alone, in tasks/get too.
        const third = await read(mode, userMessage({ text: '谢谢，再看看安全组', contextId: first.contextId }));
        expect(third.taskId).toBe(next.taskId);
        expect(third.text).toBe(first.text);
        expect(await tasksGet(next.taskId)).toBe(first.text);
      });

      it(`${store}, ${mode}: the message that moved, sent again (Bailian's retry), reads what it read, the agent not asked`, async ({
        onTestFinished,
      }) => {
        const { moved, read, turnsSent } = await start(store, onTestFinished);
        const { moving, next } = await moved(mode);
        const sent = turnsSent();
        for (const again of ['send', 'stream'] as const) expect(await read(again, moving)).toEqual(next);
        expect(turnsSent()).toBe(sent);
      });
    }

  for (const store of ['memory', 'redis'] as const) {
    it(`${store}: a stream hung up after the words, before the agent said anything: the next message reads the reply, the words not again`, async ({
      onTestFinished,
    }) => {
      // Each of the agent's events comes a while after the one before: the words are shown well before its first word.
      const { fake, gateway, read, turnsSent } = await start(store, onTestFinished, 250);
      const first = await read('send', userMessage({ text: '帮我查一下我的专有网络' }));
      fake.evictContext(first.contextId, { refuseContext: true });

      const stream = await openStream(`${gateway.url}/stream`, 'message/stream', {
        message: userMessage({ text: '再帮我查一下交换机', contextId: first.contextId }),
      });
      const shown: any[] = [];
      while (!streamedText(shown).includes(STARTED_AFRESH)) shown.push((await stream.next())!.json.result);
      expect(streamedText(shown)).toBe(`${STARTED_AFRESH}\n\n`);
      const moved = shown.at(-1);
      // A while after it read them (a frame written as its caller hangs up counts as not shown: docs/facade-reply.md),
      // well before the agent's first word.
      await new Promise((resolve) => setTimeout(resolve, 100));
      stream.abort();
      await waitUntil(async () => fakeTaskState(fake, moved.contextId) === 'TASK_STATE_INPUT_REQUIRED', 10_000);

      const sent = turnsSent();
      const after = await read('send', userMessage({ text: '谢谢，再看看安全组', contextId: first.contextId }));
      expect(after.taskId).toBe(moved.taskId);
      expect(after.text).toContain(AGENT_FIRST_WORDS);
      expect(after.text).toContain(first.text);
      expect(timesIn(after.text, STARTED_AFRESH)).toBe(0);
      expect(turnsSent()).toBe(sent);
    });

    it(`${store}: a message/send hung up before its answer: the next message reads the words once, with the reply`, async ({ onTestFinished }) => {
      const { fake, gateway, read, turnRequests } = await start(store, onTestFinished, 150);
      const first = await read('send', userMessage({ text: '帮我查一下我的专有网络' }));
      fake.evictContext(first.contextId, { refuseContext: true });
      const controller = new AbortController();
      const message = userMessage({ text: '再帮我查一下交换机', contextId: first.contextId });
      const hungUp = fetch(gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'request-1', method: 'message/send', params: { message } }),
        signal: controller.signal,
      }).catch(() => undefined);
      // The moved attempt is at the agent: its task is in a fresh context.
      const lastTurnContext = () => (turnRequests().at(-1)?.body as any)?.params.message.contextId as string | undefined;
      await waitUntil(async () => ![undefined, first.contextId].includes(lastTurnContext()), 10_000);
      const fresh = lastTurnContext()!;
      await waitUntil(async () => fakeTaskState(fake, fresh) === 'TASK_STATE_WORKING', 10_000);
      controller.abort();
      await hungUp;
      await waitUntil(async () => fakeTaskState(fake, fresh) === 'TASK_STATE_INPUT_REQUIRED', 10_000);

      const after = await read('send', userMessage({ text: '谢谢，再看看安全组', contextId: first.contextId }));
      expect(after.contextId).toBe(fresh);
      expect(after.text).toContain(first.text);
      expect(timesIn(after.text, STARTED_AFRESH)).toBe(1);
    });
  }
});
