/**
 * The stream of a turn that went on in a fresh context (iac-code refused the conversation's own for good:
 * gone-task.ts) names the fresh task in its first frame. A caller that asks tasks/get of that task at once, on
 * another replica (Bailian behind a load balancer), reads the reply opened with the facade's words that say the
 * agent started afresh (words.startedAfresh), as the stream shows it, however late the streaming replica's Redis
 * writes land: the turn is noted before anything of it goes out (started-afresh.ts).
 */
import { describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startFakeIacCode } from '../../support/fake-iac-code.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';
import { startLaggingRedis } from '../../support/lagging-redis.js';
import { freshRedisStores, REDIS_URL, requireRedis } from '../../support/redis.js';

const SCRIPT = { before: ['好的，', '正在查询。'], after: ['交换机列表如下。'], artifact: { filename: 'main.tf' } };
/** What a Chinese user reads before the answer of the turn that went on in a fresh context, a paragraph of its own. */
const OPENED =
  '智能体已不再保留之前的对话，本次回复从头开始：它不了解之前的对话内容，也无法使用之前生成的文件。如果你的消息涉及之前的内容，请重新完整地描述。\n\n';
/** How late replica A's Redis commands land: far longer than B takes to answer a tasks/get. */
const A_REDIS_LAG_MS = 200;

const tasksGet = async (gateway: RunningGateway, taskId: string): Promise<string> => {
  const { body } = await rpc(gateway.url, 'tasks/get', { id: taskId });
  expect(body.error).toBeUndefined();
  return sentText(body.result);
};

describe('facade → iac-code, two replicas on one Redis: tasks/get at once of the task a turn that started afresh opened', () => {
  it("on B, the moment A's stream names the task: the reply opens with the words, as A's stream does", async ({ onTestFinished }) => {
    await requireRedis();
    const stores = freshRedisStores('started-afresh-note-first', onTestFinished);
    const lagging = await startLaggingRedis(REDIS_URL, A_REDIS_LAG_MS);
    const fake = await startFakeIacCode({ script: SCRIPT, frameDelayMs: 80 });
    const settings = { upstream: { url: fake.url }, ...stores };
    const [a, b] = await Promise.all([
      startFacadeGateway({ ...settings, 'redis-url': lagging.url }),
      startFacadeGateway({ ...settings, 'redis-url': REDIS_URL }),
    ]);
    onTestFinished(async () => {
      await Promise.all([a.close(), b.close()]);
      await lagging.close();
      await fake.close();
    });

    const { body } = await rpc(b.url, 'message/send', { message: userMessage({ text: '帮我查一下我的专有网络' }) });
    expect(body.error).toBeUndefined();
    const first = { text: sentText(body.result), contextId: body.result.contextId as string };
    fake.evictContext(first.contextId, { refuseContext: true });

    const stream = await openStream(`${a.url}/stream`, 'message/stream', {
      message: userMessage({ text: '再帮我查一下交换机', contextId: first.contextId }),
    });
    const shown: any[] = [];
    let taskId: string | undefined;
    while (taskId === undefined) {
      const frame = await stream.next();
      if (!frame) throw new Error(`the stream ended before it named a task: ${JSON.stringify(shown)}`);
      shown.push(frame.json.result);
      taskId = frame.json.result.kind === 'task' ? frame.json.result.id : frame.json.result.taskId;
    }
    const atOnce = await tasksGet(b, taskId);

    const streamed = streamedText([...shown, ...results(await stream.rest())]);
    expect(streamed).toBe(`${OPENED}${first.text}`);
    // As far as the turn had gone then: the words first, as the stream opened.
    expect(atOnce.slice(0, OPENED.length)).toBe(OPENED);
    expect(streamed.slice(0, atOnce.length)).toBe(atOnce);
    expect(await tasksGet(b, taskId)).toBe(streamed);
  }, 30_000);
});
