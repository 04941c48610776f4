/**
 * tasks/resubscribe to the task of a turn that went on in a fresh context (iac-code refused the conversation's own for
 * good: gone-task.ts) reads what message/stream and tasks/get read of it: the facade's words that say the agent
 * started afresh (words.startedAfresh), once, then the agent's answer. Its caller read none of the reply on this
 * stream (its own stream dropped, or it reads beside it), so the words come first, as the turn's stream opened; a
 * later turn of the same task, followed so, reads the agent alone. A turn that ended (iac-code's input-required, which the
 * core answers with its Task alone) reads as tasks/get reads it, the words too. The note that the turn started afresh is kept in memory and in Redis alike.
 */
import { describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode, type FakeIacCode } from '../../support/fake-iac-code.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import { freshRedisStores, requireRedis } from '../../support/redis.js';

const SCRIPT = { before: ['好的，', '正在查询。'], after: ['交换机列表如下。'], artifact: { filename: 'main.tf' } };
/** What a Chinese user reads before the answer of the turn that went on in a fresh context. */
const STARTED_AFRESH =
  '智能体已不再保留之前的对话，本次回复从头开始：它不了解之前的对话内容，也无法使用之前生成的文件。如果你的消息涉及之前的内容，请重新完整地描述。';
const AGENT_FIRST_WORDS = SCRIPT.before[0]!;

type Store = 'memory' | 'redis';

/** How many times `words` are in `text`. */
const timesIn = (text: string, words: string): number => text.split(words).length - 1;

/** A fake iac-code and a gateway in front of it, a test's own. */
async function start(store: Store, onTestFinished: (close: () => Promise<void>) => void): Promise<{ fake: FakeIacCode; gateway: RunningGateway }> {
  if (store === 'redis') await requireRedis();
  const stores = store === 'redis' ? freshRedisStores('started-afresh-resubscribe', onTestFinished) : {};
  // The turn lasts a while (about a second): a caller joins it at work.
  const fake = await startFakeIacCode({ script: SCRIPT, frameDelayMs: 80 });
  const gateway = await startFacadeGateway({ upstream: { url: fake.url }, ...stores });
  onTestFinished(async () => {
    await gateway.close();
    await fake.close();
  });
  return { fake, gateway };
}

/** A conversation's first turn read whole, then its context refused for good by iac-code. */
async function firstTurnThenRefused(gateway: RunningGateway, fake: FakeIacCode): Promise<{ text: string; contextId: string }> {
  const { body } = await rpc(gateway.url, 'message/send', { message: userMessage({ text: '帮我查一下我的专有网络' }) });
  expect(body.error).toBeUndefined();
  fake.evictContext(body.result.contextId, { refuseContext: true });
  return { text: sentText(body.result), contextId: body.result.contextId };
}

/** The frames of a stream up to the first whose text includes `words` (the stream left open). */
async function readUntil(stream: Awaited<ReturnType<typeof openStream>>, words: string): Promise<any[]> {
  const shown: any[] = [];
  while (!streamedText(shown).includes(words)) {
    const frame = await stream.next();
    if (!frame) throw new Error(`the stream ended before it showed "${words}": ${JSON.stringify(shown)}`);
    shown.push(frame.json.result);
  }
  return shown;
}

const resubscribed = async (gateway: RunningGateway, taskId: string): Promise<any[]> =>
  results(await (await openStream(`${gateway.url}/stream`, 'tasks/resubscribe', { id: taskId })).rest());

const tasksGet = async (gateway: RunningGateway, taskId: string): Promise<string> => {
  const { body } = await rpc(gateway.url, 'tasks/get', { id: taskId });
  expect(body.error).toBeUndefined();
  return sentText(body.result);
};

describe.concurrent('facade → iac-code: tasks/resubscribe to a turn that started afresh', () => {
  for (const store of ['memory', 'redis'] as const) {
    it(`${store}: joined beside its stream, after the agent's first words: the words once, then the reply, as the stream and tasks/get read it`, async ({
      onTestFinished,
    }) => {
      const { fake, gateway } = await start(store, onTestFinished);
      const first = await firstTurnThenRefused(gateway, fake);
      const stream = await openStream(`${gateway.url}/stream`, 'message/stream', {
        message: userMessage({ text: '再帮我查一下交换机', contextId: first.contextId }),
      });
      const shown = await readUntil(stream, AGENT_FIRST_WORDS);
      const { taskId, contextId } = shown.at(-1);
      expect(contextId).not.toBe(first.contextId);

      const [joined, rest] = await Promise.all([resubscribed(gateway, taskId), stream.rest()]);
      const streamed = streamedText([...shown, ...results(rest)]);
      expect(streamed).toBe(`${STARTED_AFRESH}\n\n${first.text}`);
      expect(joined[0]).toMatchObject({ kind: 'task', id: taskId });
      expect(['submitted', 'working']).toContain(joined[0].status.state);
      expect(joined.at(-1)).toMatchObject({ kind: 'status-update', final: true });
      expect(streamedText(joined)).toBe(streamed);
      expect(await tasksGet(gateway, taskId)).toBe(streamed);
    });

    it(`${store}: joined after its stream dropped, before the agent said anything: the words once, then the reply`, async ({ onTestFinished }) => {
      const { fake, gateway } = await start(store, onTestFinished);
      const first = await firstTurnThenRefused(gateway, fake);
      const stream = await openStream(`${gateway.url}/stream`, 'message/stream', {
        message: userMessage({ text: '再帮我查一下交换机', contextId: first.contextId }),
      });
      const shown = await readUntil(stream, STARTED_AFRESH);
      expect(streamedText(shown)).toBe(`${STARTED_AFRESH}\n\n`);
      const { taskId } = shown.at(-1);
      stream.abort();

      const joined = await resubscribed(gateway, taskId);
      expect(joined[0]).toMatchObject({ kind: 'task', id: taskId });
      expect(['submitted', 'working']).toContain(joined[0].status.state);
      const text = streamedText(joined);
      expect(timesIn(text, STARTED_AFRESH)).toBe(1);
      expect(text).toBe(`${STARTED_AFRESH}\n\n${first.text}`);
      expect(await tasksGet(gateway, taskId)).toBe(text);
    });
  }

  it("a later turn of the task, joined at work: the agent's reply alone", async ({ onTestFinished }) => {
    const { fake, gateway } = await start('memory', onTestFinished);
    const first = await firstTurnThenRefused(gateway, fake);
    const moved = await rpc(gateway.url, 'message/send', { message: userMessage({ text: '再帮我查一下交换机', contextId: first.contextId }) });
    expect(sentText(moved.body.result)).toBe(`${STARTED_AFRESH}\n\n${first.text}`);

    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', {
      message: userMessage({ text: '谢谢，再看看安全组', contextId: first.contextId }),
    });
    const shown = await readUntil(stream, AGENT_FIRST_WORDS);
    const { taskId } = shown.at(-1);
    expect(taskId).toBe(moved.body.result.id);
    const [joined] = await Promise.all([resubscribed(gateway, taskId), stream.rest()]);
    expect(streamedText(joined)).toBe(first.text);
  });

  it('after the turn ended: the words once, then the reply, as tasks/get reads it; a turn that did not move, the agent alone', async ({
    onTestFinished,
  }) => {
    const { fake, gateway } = await start('memory', onTestFinished);
    const first = await firstTurnThenRefused(gateway, fake);
    const moved = await rpc(gateway.url, 'message/send', { message: userMessage({ text: '再帮我查一下交换机', contextId: first.contextId }) });
    const other = await rpc(gateway.url, 'message/send', { message: userMessage({ text: '另一个对话' }) });

    for (const [result, read] of [
      [moved.body.result, `${STARTED_AFRESH}\n\n${first.text}`],
      [other.body.result, first.text],
    ] as const) {
      const joined = await resubscribed(gateway, result.id);
      expect(joined.at(-1)).toMatchObject({ kind: 'status-update', taskId: result.id, final: true, status: { state: 'completed' } });
      expect(streamedText(joined)).toBe(read);
      expect(sentText(result)).toBe(read);
      expect(await tasksGet(gateway, result.id)).toBe(read);
      // Under the reply artifact tasks/get shows it by: a client that merges by artifactId shows it once.
      const got = (await rpc(gateway.url, 'tasks/get', { id: result.id })).body.result;
      const streamedIds = new Set(joined.filter((event) => event.kind === 'artifact-update').map((event) => event.artifact.artifactId));
      expect([...streamedIds]).toEqual(got.artifacts.map((artifact: any) => artifact.artifactId));
    }
  });
});
