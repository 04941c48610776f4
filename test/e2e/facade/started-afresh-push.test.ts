/**
 * A Bailian webhook (registered through the facade) of a turn that went on in a fresh context (iac-code refused the
 * conversation's own for good: gone-task.ts) is pushed the Task tasks/get answers (pushed-task.ts): its reply opens with
 * the facade's words that say the agent started afresh (words.startedAfresh), then the agent's answer, as the
 * turn's message/send and message/stream read. With `push-events: all`, every body pushed while the turn works shows
 * a reply that only grows from those words. Kept in memory (a persistence dir) and in Redis alike.
 * A webhook inline with the message is pushed that one task only: never the tasks of the attempts iac-code refused
 * before the turn went on (failed in iac-code's English), which the facade dropped and its user never read.
 */
import { describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { CONTEXT_EXPIRED, TASK_EXPIRED } from '../../support/fake-iac-code-eviction.js';
import { openStream, results, rpc, sentText, streamedText, userMessage } from '../../support/facade.js';
import { waitUntil } from '../../support/wait-until.js';
import type { Receiver } from '../push/harness.js';
import { startPushingFacade, type PushingFacade } from './fixtures/pushing-facade.js';

const SCRIPT = { before: ['好的，', '正在查询。'], after: ['交换机列表如下。'], artifact: { filename: 'main.tf' } };
/** What a Chinese user reads before the answer of the turn that went on in a fresh context. */
const STARTED_AFRESH =
  '智能体已不再保留之前的对话，本次回复从头开始：它不了解之前的对话内容，也无法使用之前生成的文件。如果你的消息涉及之前的内容，请重新完整地描述。';

type Store = 'memory' | 'redis';
type PushEvents = 'terminal' | 'all';

type Setup = PushingFacade;

/** A fake iac-code, a webhook receiver and a gateway that pushes to it, a test's own; closed when the test ends. */
const start = (store: Store, pushEvents: PushEvents, onTestFinished: (close: () => Promise<void>) => void, frameDelayMs = 20): Promise<Setup> =>
  startPushingFacade({ store, fake: { script: SCRIPT, frameDelayMs }, settings: { 'push-events': pushEvents } }, onTestFinished);

/** A conversation's first turn read whole, then its context refused for good by iac-code. */
async function firstTurnThenRefused({ gateway, fake }: Setup): Promise<{ text: string; contextId: string; taskId: string }> {
  const { body } = await rpc(gateway.url, 'message/send', { message: userMessage({ text: '帮我查一下我的专有网络' }) });
  expect(body.error).toBeUndefined();
  fake.evictContext(body.result.contextId, { refuseContext: true });
  return { text: sentText(body.result), contextId: body.result.contextId, taskId: body.result.id };
}

/** What its user reads of `message` sent with the webhook `url` inline, one way or the other; the task it ran in. */
async function readWithWebhook(gateway: RunningGateway, mode: 'send' | 'stream', message: Record<string, unknown>, url: string) {
  const params = { message, configuration: { acceptedOutputModes: ['text/plain'], pushNotificationConfig: { url } } };
  if (mode === 'send') {
    const { body } = await rpc(gateway.url, 'message/send', params);
    expect(body.error).toBeUndefined();
    return { text: sentText(body.result), taskId: body.result.id as string, contextId: body.result.contextId as string };
  }
  const events = results(await (await openStream(`${gateway.url}/stream`, 'message/stream', params)).rest());
  return { text: streamedText(events), taskId: events.at(-1).taskId as string, contextId: events.at(-1).contextId as string };
}

const tasksGet = async (gateway: RunningGateway, taskId: string): Promise<any> => {
  const { body } = await rpc(gateway.url, 'tasks/get', { id: taskId });
  expect(body.error).toBeUndefined();
  return body.result;
};

/** The bodies pushed to `path` about `taskId`, oldest first. */
const pushedOf = (receiver: Receiver, path: string, taskId: string): any[] =>
  receiver
    .at(path)
    .map((entry) => entry.json as any)
    .filter((body) => body.id === taskId);

/**
 * Every body pushed to `path` is of the task tasks/get reads (`got`), the words first: none of the attempts iac-code
 * refused (the first turn's task it forgot, then a new task of the context it refuses), failed in its English.
 */
function onlyTurnPushed(receiver: Receiver, path: string, got: any): void {
  const bodies = receiver.at(path).map((entry) => entry.json as any);
  expect(bodies.length).toBeGreaterThan(0);
  expect([...new Set(bodies.map((body) => body.id))]).toEqual([got.id]);
  for (const body of bodies) {
    expect(body.status.state).not.toBe('failed');
    for (const refusal of [TASK_EXPIRED, CONTEXT_EXPIRED]) expect(JSON.stringify(body)).not.toContain(refusal);
  }
  expect(sentText(bodies.at(-1)).startsWith(`${STARTED_AFRESH}\n\n`)).toBe(true);
}

/** The first turn, then the message that moves, sent with the webhook `path` inline; what its user read and tasks/get reads. */
async function movedWithWebhook(setup: Setup, mode: 'send' | 'stream', path: string) {
  const { gateway, receiver } = setup;
  const first = await firstTurnThenRefused(setup);
  const message = userMessage({ text: '再帮我查一下交换机', contextId: first.contextId });
  const moved = await readWithWebhook(gateway, mode, message, `${receiver.url}${path}`);
  expect(moved.contextId).not.toBe(first.contextId);
  expect(moved.text).toBe(`${STARTED_AFRESH}\n\n${first.text}`);
  const got = await tasksGet(gateway, moved.taskId);
  expect(sentText(got)).toBe(moved.text);
  return { first, moved, got };
}

/** Waits until the turn's end, as tasks/get reads it, was pushed to `path`. */
async function endPushed(receiver: Receiver, path: string, got: any): Promise<void> {
  await waitUntil(async () => JSON.stringify(pushedOf(receiver, path, got.id).at(-1)) === JSON.stringify(got), 8_000);
}

describe.concurrent('facade → iac-code: the webhook of a turn that started afresh', () => {
  for (const store of ['memory', 'redis'] as const)
    for (const mode of ['send', 'stream'] as const)
      it(`${store}, ${mode}, inline with the message: pushed only the Task tasks/get reads, words then reply`, async ({ onTestFinished }) => {
        const setup = await start(store, 'terminal', onTestFinished);
        const path = `/afresh-${mode}`;
        const { moved, got } = await movedWithWebhook(setup, mode, path);
        await endPushed(setup.receiver, path, got);
        onlyTurnPushed(setup.receiver, path, got);
        const [pushed, ...more] = pushedOf(setup.receiver, path, moved.taskId);
        expect(more).toEqual([]);
        expect(pushed).toMatchObject({ kind: 'task', id: moved.taskId, contextId: moved.contextId, status: { state: 'completed' } });
        expect(sentText(pushed)).toBe(moved.text);
      });

  it('push-events all: every body pushed while the turn works opens with the words and grows to the reply tasks/get reads', async ({
    onTestFinished,
  }) => {
    // The agent's events a while apart: bodies are pushed while the turn works.
    const setup = await start('memory', 'all', onTestFinished, 60);
    const { moved, got } = await movedWithWebhook(setup, 'stream', '/all');
    await endPushed(setup.receiver, '/all', got);
    onlyTurnPushed(setup.receiver, '/all', got);
    const texts = pushedOf(setup.receiver, '/all', moved.taskId).map(sentText);
    const shown = texts.filter((text) => text !== '');
    // The words came before the agent's first word, and in every body after them.
    expect(shown.length).toBeGreaterThan(1);
    for (const [at, text] of shown.entries()) {
      expect(text.startsWith(`${STARTED_AFRESH}\n\n`)).toBe(true);
      expect(moved.text.startsWith(text)).toBe(true);
      if (at > 0) expect(text.startsWith(shown[at - 1]!)).toBe(true);
    }
  });
});
