/**
 * A Bailian caller set a webhook on its conversation's task with tasks/pushNotificationConfig/set, then wrote again
 * (naming no task, as Bailian never does). The facade aimed the follow-up at that task; iac-code no longer had it
 * (evicted while idle: "A2A task expired"; or restarted: the task unknown), and the caller's words went again as a
 * new task of the conversation (gone-task.ts). The webhook is pushed that new task's end, the Task tasks/get reads,
 * with the token the caller set; the config stays on the first task too. Another caller's webhook, on its own task,
 * is left as it was and pushed nothing of it, and that caller cannot read the new task. Memory and Redis alike.
 */
import { describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { API_KEY, openStream, results, rpc, sentText, streamedText, userMessage } from '../../support/facade.js';
import { waitUntil } from '../../support/wait-until.js';
import { startPushingFacade, type PushingFacade } from './fixtures/pushing-facade.js';

const SCRIPT = { before: ['好的，', '正在查询。'], after: ['交换机列表如下。'], artifact: { filename: 'main.tf' } };
const OTHER_KEY = 'bailian-other-key-4567';
const TOKEN = 'caller-a-webhook-token';

type Store = 'memory' | 'redis';
type Mode = 'send' | 'stream';
/** How iac-code lost the task: evicted it while idle (it fails a message to it), or restarted (it does not know it). */
type Lost = 'evicted' | 'restarted';

type Setup = PushingFacade;

/** Two callers (two keys) of one gateway in front of a fake iac-code, and a webhook receiver; closed when the test ends. */
const start = (store: Store, onTestFinished: (close: () => Promise<void>) => void): Promise<Setup> =>
  startPushingFacade(
    { store, fake: { script: SCRIPT, frameDelayMs: 20 }, settings: { bailian: { 'api-keys': [API_KEY, OTHER_KEY] } } },
    onTestFinished,
  );

/** A call as the caller with `key`. */
const as = (gateway: RunningGateway, key: string) => (method: string, params: unknown) =>
  rpc(gateway.url, method, params, { headers: { 'X-API-KEY': key } }).then(({ body }) => body);

/** The caller's first turn of a conversation, read whole, and its webhook set on the turn's task. */
async function turnWithWebhook(gateway: RunningGateway, key: string, url: string, token?: string) {
  const call = as(gateway, key);
  const first = await call('message/send', { message: userMessage({ text: '帮我查一下我的专有网络' }) });
  expect(first.error).toBeUndefined();
  const taskId = first.result.id as string;
  const pushNotificationConfig = { url, ...(token ? { token } : {}) };
  const set = await call('tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig });
  expect(set.error).toBeUndefined();
  return { taskId, contextId: first.result.contextId as string, text: sentText(first.result) };
}

/** The caller's follow-up in `contextId`, naming no task, as its user reads it; the task it ran in. */
async function followUp(gateway: RunningGateway, mode: Mode, contextId: string) {
  const headers = { 'X-API-KEY': API_KEY };
  const params = { message: userMessage({ text: '再帮我查一下交换机', contextId }), configuration: { acceptedOutputModes: ['text/plain'] } };
  if (mode === 'send') {
    const { body } = await rpc(gateway.url, 'message/send', params, { headers });
    expect(body.error).toBeUndefined();
    return { text: sentText(body.result), taskId: body.result.id as string, contextId: body.result.contextId as string };
  }
  const events = results(await (await openStream(`${gateway.url}/stream`, 'message/stream', params, { headers })).rest());
  return { text: streamedText(events), taskId: events.at(-1).taskId as string, contextId: events.at(-1).contextId as string };
}

/** The urls of the caller's webhooks on `taskId`, or its error. */
async function webhooksOn(gateway: RunningGateway, key: string, taskId: string): Promise<string[] | { code: number }> {
  const listed = await as(gateway, key)('tasks/pushNotificationConfig/list', { id: taskId });
  if (listed.error) return { code: listed.error.code as number };
  return listed.result.map((entry: any) => entry.pushNotificationConfig.url as string);
}

describe.concurrent('facade → iac-code: a webhook set on the task the facade aimed a follow-up at, which iac-code lost', () => {
  const cases: Array<[Store, Mode, Lost]> = [
    ['memory', 'send', 'evicted'],
    ['memory', 'stream', 'evicted'],
    ['memory', 'stream', 'restarted'],
    ['redis', 'send', 'restarted'],
    ['redis', 'stream', 'evicted'],
  ];
  for (const [store, mode, lost] of cases)
    it(`${store}, ${mode}, ${lost}: pushed the new task's end as tasks/get reads it; the other caller's webhook untouched`, async ({
      onTestFinished,
    }) => {
      const { fake, gateway, receiver } = await start(store, onTestFinished);
      const mine = await turnWithWebhook(gateway, API_KEY, `${receiver.url}/a`, TOKEN);
      const theirs = await turnWithWebhook(gateway, OTHER_KEY, `${receiver.url}/b`);
      if (lost === 'evicted') fake.evictContext(mine.contextId);
      else fake.restart();

      const moved = await followUp(gateway, mode, mine.contextId);
      expect(moved.taskId).not.toBe(mine.taskId);
      expect(moved.contextId).toBe(mine.contextId);
      expect(moved.text).toBe(mine.text);
      const { body: got } = await rpc(gateway.url, 'tasks/get', { id: moved.taskId }, { headers: { 'X-API-KEY': API_KEY } });
      expect(got.error).toBeUndefined();
      expect(sentText(got.result)).toBe(moved.text);

      const pushedOfMoved = () => receiver.at('/a').filter((entry) => (entry.json as any).id === moved.taskId);
      await waitUntil(async () => (pushedOfMoved().at(-1)?.json as any)?.status?.state === 'completed', 8_000);
      const [pushed, ...more] = pushedOfMoved();
      expect(more).toEqual([]);
      // Nothing of the attempt iac-code refused: the first task's failure ("A2A task expired") is not the caller's turn.
      expect(receiver.at('/a').map((entry) => (entry.json as any).id)).toEqual([moved.taskId]);
      expect(pushed!.json).toEqual(got.result);
      expect(pushed!.headers['x-a2a-notification-token']).toBe(TOKEN);

      // The webhook stays on the task it was set on; the caller sees it on the new task too.
      expect(await webhooksOn(gateway, API_KEY, mine.taskId)).toEqual([`${receiver.url}/a`]);
      expect(await webhooksOn(gateway, API_KEY, moved.taskId)).toEqual([`${receiver.url}/a`]);
      // Set without an id, it was named after its task (the default): on the new task, after that one.
      const onMoved = await as(gateway, API_KEY)('tasks/pushNotificationConfig/list', { id: moved.taskId });
      expect(onMoved.result[0]).toMatchObject({ taskId: moved.taskId, pushNotificationConfig: { id: moved.taskId } });
      // The other caller's own webhook is as it set it, pushed nothing of the moved turn; the new task is not theirs.
      expect(await webhooksOn(gateway, OTHER_KEY, theirs.taskId)).toEqual([`${receiver.url}/b`]);
      expect(receiver.at('/b').filter((entry) => (entry.json as any).id === moved.taskId)).toEqual([]);
      expect(await webhooksOn(gateway, OTHER_KEY, moved.taskId)).toEqual({ code: -32001 });
      const theirGet = await as(gateway, OTHER_KEY)('tasks/get', { id: moved.taskId });
      expect(theirGet.error?.code).toBe(-32001);
    });
});
